import { Link } from '../../client/components/link.tsx'

/**
 * The test pages' own navigation, on each of the pages the browser suite navigates between: labels and paths of the
 * test site, so that no test clicks a link of the example's navigation. Test routes only.
 */
const testNavigation = [
  { href: '/__test/static', label: 'Static' },
  { href: '/__test/dynamic', label: 'Dynamic' },
  { href: '/__test/guides', label: 'Guides' },
  { href: '/__test/filter', label: 'Filter' },
  { href: '/__test/partial', label: 'Partial' },
] as const

export function TestNav() {
  return (
    <nav aria-label="Test pages">
      <ul>
        {testNavigation.map((item) => (
          <li key={item.href}>
            <Link href={item.href}>{item.label}</Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
