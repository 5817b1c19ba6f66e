/**
 * The example site's own pages (home, guides, a guide, status, FAQ) render with their content, in the server's HTML
 * and still after hydration, with the example's navigation and footer. This is a test of the example, not of Courier:
 * a site of your own adapts it to its pages or deletes it (docs/your-site.md "Start from a blank site"). The browser
 * suite runs test/example/*.test.ts in Chromium when the folder is there (test/e2e/run.ts).
 */
import t, { type Test } from 'tap'
import { startSuite, timeouts, type Session } from '../e2e/harness.ts'
import { firstGuide, guideLinks } from './guide-links.ts'

const suite = await startSuite(t)

/** Where the one screenshot of the home page goes (not committed: look at it after a run). */
const screenshotPath = process.env.COURIER_E2E_SCREENSHOT ?? '/tmp/courier-home.png'

/** The visible text of the first element matching `selector`, whitespace collapsed. */
async function text(session: Session, selector: string): Promise<string> {
  return ((await session.page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim()
}

/** What every page shares: the main navigation and the footer. */
async function assertLayout(t: Test, session: Session) {
  const navigation = await session.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
  t.same(
    navigation,
    ['Home', 'Guides', 'Status', 'FAQ', 'Gallery', 'Account'],
    'the main navigation links every top-level page',
  )
  t.match(await text(session, 'footer'), /Courier delivers this site/, 'the footer is shown')
}

t.test('home page: title, heading and the list of guides', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/')
  t.equal(response.status(), 200)
  const html = await response.text()
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(await session.page.title(), 'Courier: React delivery on Fastify')
  t.equal(await text(session, 'main h1'), 'Courier')
  t.ok(html.includes('<h1>Courier</h1>'), 'the heading is in the server HTML, not only rendered in the browser')
  const guides = await guideLinks(session.page)
  t.ok(guides.length > 0, `the home page lists guides (${guides.length})`)
  for (const guide of guides) {
    t.match(guide.href, /^\/guides\/[^/?#]+$/, `the link to "${guide.text}" is a guide path`)
    t.ok(guide.text && guide.summary, `${guide.href} has a title and a summary`)
    t.ok(html.includes(`href="${guide.href}"`), `${guide.href} is linked in the server HTML`)
  }
  await assertLayout(t, session)

  await session.settle()
  await session.page.screenshot({ path: screenshotPath, fullPage: true, timeout: timeouts.actionMs })
  t.comment(`screenshot of / written to ${screenshotPath}`)
})

t.test('guides page lists the same guides as the home page', async (t) => {
  const session = await suite.open(t)
  await session.goto('/')
  const fromHome = await guideLinks(session.page)
  const response = await session.goto('/guides')
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(await session.page.title(), 'Guides · Courier')
  t.equal(await text(session, 'main h1'), 'Guides')
  const listed = await guideLinks(session.page)
  t.ok(listed.length > 0, `guides are listed (${listed.length})`)
  t.same(listed, fromHome, 'the same guides, in the same order, with the same summaries')
  await assertLayout(t, session)
})

t.test('a guide page shows the guide linked from the home page', async (t) => {
  const session = await suite.open(t)
  const guide = await firstGuide(session)
  const guideCount = (await guideLinks(session.page)).length
  const response = await session.goto(guide.href)
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(await session.page.title(), `${guide.text} · Courier`)
  t.equal(await text(session, 'main h1'), guide.text, 'the heading is the title the link showed')
  t.equal(await text(session, 'main .lead'), guide.summary, 'the lead is the summary the home page showed')
  const sections = await session.page.locator('main article section').evaluateAll((elements) =>
    elements.map((section) => ({
      heading: section.querySelector('h2')?.textContent?.trim() ?? '',
      paragraphs: [...section.querySelectorAll('p')].map((paragraph) => paragraph.textContent?.trim() ?? ''),
    })),
  )
  t.ok(sections.length > 0, `the guide has sections (${sections.length})`)
  for (const section of sections) {
    t.ok(section.heading, 'a section has a heading')
    t.ok(section.paragraphs.length > 0 && section.paragraphs.every(Boolean), `"${section.heading}" holds text`)
  }
  t.equal(
    await session.page.locator('main .breadcrumb a').getAttribute('href'),
    '/guides',
    'the breadcrumb leads back to the guides',
  )
  const pager = await session.page.getByRole('navigation', { name: 'More guides' }).getByRole('link').count()
  t.equal(pager > 0, guideCount > 1, 'the pager links another guide when there is one')
  await assertLayout(t, session)
})

t.test('status page shows this server and this deployment', async (t) => {
  const session = await suite.open(t)
  const before = Date.now()
  const response = await session.goto('/status')
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(await session.page.title(), 'Status · Courier')
  t.equal(await text(session, 'main h1'), 'Status')
  // The deployment's facts (the kept shell) and the live figures (its holes, for this request), in three lists.
  const facts = await session.page.locator('main dl.facts').evaluateAll((lists) => {
    const entries: Record<string, string> = {}
    for (const term of lists.flatMap((list) => [...list.querySelectorAll('dt')])) {
      entries[term.textContent ?? ''] = term.nextElementSibling?.textContent ?? ''
    }
    return entries
  })
  t.equal(facts['Deployment'], suite.deploymentId, 'the deployment shown is the build served')
  t.equal(facts['Node.js'], process.version, 'the Node.js version is the server process')
  const serverTime = Date.parse(facts['Server time'] ?? '')
  t.ok(
    serverTime >= before - 1000 && serverTime <= Date.now() + 1000,
    `the server time is now (${facts['Server time']})`,
  )
  t.match(facts['Uptime'], /^\d+ s$/)
  t.match(facts['Resident memory'], /^\d+\.\d MB$/)
  t.match(facts['Heap used'], /^\d+\.\d MB of \d+\.\d MB$/)
  await assertLayout(t, session)
})

t.test('FAQ page lists its questions with a count', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/faq')
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(await session.page.title(), 'FAQ · Courier')
  t.equal(await text(session, 'main h1'), 'Frequently asked questions')
  const entries = await session.page.locator('main .faq-entry').evaluateAll((items) =>
    items.map((item) => ({
      question: item.querySelector('dt')?.textContent?.trim() ?? '',
      answer: item.querySelector('dd')?.textContent?.trim() ?? '',
    })),
  )
  t.ok(entries.length > 0, `questions are listed (${entries.length})`)
  t.ok(
    entries.every((entry) => entry.question && entry.answer),
    'every question has an answer',
  )
  t.equal(await text(session, 'main .faq-count'), `${entries.length} of ${entries.length} questions`)
  t.ok(await session.page.getByRole('searchbox', { name: 'Filter questions' }).isVisible(), 'the filter box is shown')
  await assertLayout(t, session)
})
