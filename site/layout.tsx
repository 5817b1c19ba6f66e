import type { ReactNode } from 'react'
import { useNavigating } from '../client/router/router-context.tsx'
import { Link } from '../client/components/link.tsx'

/** Top-level pages, linked from every page with real links (Link), so navigation works without JavaScript too. */
const navigation = [
  { href: '/', label: 'Home' },
  { href: '/guides', label: 'Guides' },
  { href: '/status', label: 'Status' },
  { href: '/faq', label: 'FAQ' },
  { href: '/gallery', label: 'Gallery' },
  { href: '/account', label: 'Account' },
] as const

export function Layout({ children }: { children: ReactNode }) {
  // While a client navigation loads the next page, the page shown is about to change (no attribute otherwise).
  const navigating = useNavigating()
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
                <Link href={item.href}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1} aria-busy={navigating || undefined}>
        {children}
      </main>
      <footer className="site-footer">
        <p>Courier delivers this site: streamed from Fastify, hydrated by React.</p>
      </footer>
    </div>
  )
}
