import type { ReactNode } from 'react'

/** Top-level pages, linked from every page with plain links so navigation works without JavaScript. */
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
        <a className="brand" href="/">
          Courier
        </a>
        <nav aria-label="Main">
          <ul>
            {navigation.map((item) => (
              <li key={item.href}>
                <a href={item.href}>{item.label}</a>
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
