// The peer's configuration: the same image widths and cache floor as Courier (config/images.ts, written into
// generated/site.json by the bench), and the headers Courier sends on every response, excluded paths too.
import { readFileSync } from 'node:fs'

const site = JSON.parse(readFileSync(new URL('./generated/site.json', import.meta.url), 'utf8'))

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // The peer is its own project (own lock): not a workspace of Courier's, whose TypeScript 7 Next cannot use.
  outputFileTracingRoot: import.meta.dirname,
  poweredByHeader: false,
  images: {
    deviceSizes: site.images.deviceSizes,
    imageSizes: site.images.imageSizes,
    minimumCacheTTL: site.images.minimumCacheTTL,
  },
  // Courier's alwaysHeaders (config/request-filter.ts): on every response, so not the middleware's job (its
  // matcher skips the excluded paths).
  async headers() {
    return [
      {
        source: '/:path*',
        headers: Object.entries(site.policy.alwaysHeaders).map(([key, value]) => ({ key, value })),
      },
    ]
  },
  // The bench builds the peer to measure it: type errors and lint are Courier's tests' business, not the build's.
  typescript: { ignoreBuildErrors: true },
  eslint: { ignoreDuringBuilds: true },
}

export default nextConfig
