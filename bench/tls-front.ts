/**
 * A plain nginx TLS front for a server the bench started (the Next.js peer): HTTPS and HTTP/2 with the TLS policy of
 * deploy/nginx/tls.conf, every request passed to the server unbuffered, nothing cached or compressed by nginx. For
 * `npm run lighthouse` with `LIGHTHOUSE_THROUGH_NGINX=https`: Lighthouse's simulation charges an HTTPS origin one
 * more round trip for the TLS handshake (150 ms in the mobile preset), so Courier through HTTPS is also compared with
 * Next through HTTPS, the way each is put on the internet.
 */
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { host } from './config.ts'
import { makeCertificate, runNginx, spkiOf, type NginxProxy } from './nginx-proxy.ts'
import { findFreePort } from './processes.ts'

const deployNginx = path.join(import.meta.dirname, '..', 'deploy', 'nginx')

/** The whole configuration: a health server on the plain port, the TLS server passing everything upstream. */
interface FrontPorts {
  port: number
  httpsPort: number
  upstreamPort: number
}

function frontConfig(options: FrontPorts & { certificate: string; key: string }) {
  return `worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path temp/body;
  proxy_temp_path temp/proxy;
  fastcgi_temp_path temp/fastcgi;
  uwsgi_temp_path temp/uwsgi;
  scgi_temp_path temp/scgi;
  server {
    listen ${host}:${options.port};
    location = /nginx-health { return 200; }
  }
  server {
    # nginx 1.22 (Debian 12) takes HTTP/2 on the listen line.
    listen ${host}:${options.httpsPort} ssl http2;
    ssl_certificate ${options.certificate};
    ssl_certificate_key ${options.key};
    include tls.conf;
    location / {
      proxy_pass http://${host}:${options.upstreamPort};
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-Proto https;
      proxy_buffering off;
    }
  }
}
`
}

/** Starts the front for the server on `upstreamPort`: its origin is `https://localhost:<port>`, `spki` its key's
 * hash. */
export async function startTlsFront(upstreamPort: number): Promise<NginxProxy & { spki: string }> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-bench-tls-front-'))
  const [port, httpsPort] = [await findFreePort(), await findFreePort()]
  const { certificate, key } = makeCertificate(prefix)
  for (const file of ['tls.conf', 'ffdhe2048.pem']) {
    await copyFile(path.join(deployNginx, file), path.join(prefix, file))
  }
  await mkdir(path.join(prefix, 'temp'), { recursive: true })
  const configFile = path.join(prefix, 'nginx.conf')
  await writeFile(configFile, frontConfig({ port, httpsPort, upstreamPort, certificate, key }))
  const front = await runNginx(prefix, configFile, port)
  return { ...front, origin: `https://localhost:${httpsPort}`, port: httpsPort, spki: spkiOf(certificate) }
}
