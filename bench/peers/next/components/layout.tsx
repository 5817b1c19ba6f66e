import type { ReactNode } from 'react'
import Link from 'next/link'

/** Courier's layout (site/layout.tsx), the same markup. */
const navigation = [
  { href: '/', label: 'Home' },
  { href: '/guides', label: 'Guides' },
  { href: '/status', label: 'Status' },
  { href: '/faq', label: 'FAQ' },
  { href: '/gallery', label: 'Gallery' },
] as const

export function Layout({ children }: { children: ReactNode }) {
  return (
    <div className="site">
      <header className="site-header">
        <Link className="brand" href="/">
          Courier
        </Link>
        <nav aria-label="Main">
          <ul>
            {navigation.map((item) => (
              <li key={item.href}>
                <Link href={item.href} prefetch={false}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <p>Courier delivers this site: streamed from Fastify, hydrated by React.</p>
      </footer>
    </div>
  )
}
