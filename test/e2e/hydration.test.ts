/**
 * React takes over the server's HTML on every page (the test build's, one of each kind, and the site's own), and the
 * page then answers the user: on the test build's filter page the filter box narrows the list and the count follows.
 */
import t from 'tap'
import { narrowingWord, type FilterEntry } from './filter-entries.ts'
import { startSuite, type Session } from './harness.ts'
import { filterPage, sitePagePaths, testPagePaths } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

t.test('every page hydrates', async (t) => {
  const session = await suite.open(t)
  for (const path of [...testPagePaths, ...sitePagePaths, '/no-such-page']) {
    await session.goto(path)
    t.ok(await session.waitForHydration(), `${path}: <html data-hydrated="true"> after load`)
  }
})

async function shownEntries(session: Session): Promise<FilterEntry[]> {
  return session.page.locator('main .filter-entry').evaluateAll((items) =>
    items.map((item) => ({
      question: item.querySelector('dt')?.textContent ?? '',
      answer: item.querySelector('dd')?.textContent ?? '',
    })),
  )
}

/** Waits (bounded) until the count line reads `expected`; returns what it read last. */
async function countLine(session: Session, expected: string): Promise<string> {
  const count = session.page.locator('main .filter-count')
  await session.page
    .waitForFunction((text) => document.querySelector('main .filter-count')?.textContent === text, expected)
    .catch(() => undefined)
  return (await count.textContent()) ?? ''
}

t.test('typing in the filter box narrows the list and updates the count', async (t) => {
  const session = await suite.open(t)
  await session.goto(filterPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  const all = await shownEntries(session)
  const total = all.length
  t.ok(total > 1, `there are entries to filter (${total})`)
  const pick = narrowingWord(all)
  if (!pick) return t.fail('no word of the questions narrows the list: the content cannot exercise the filter')

  const box = session.page.getByRole('searchbox', { name: 'Filter entries' })
  await box.pressSequentially(pick.word)
  t.equal(
    await countLine(session, `${pick.matching.length} of ${total} entries`),
    `${pick.matching.length} of ${total} entries`,
  )
  t.same(
    (await shownEntries(session)).map((entry) => entry.question),
    pick.matching.map((entry) => entry.question),
    `"${pick.word}" shows exactly the questions that mention it`,
  )

  // Case is ignored, like the user expects of a search box.
  await box.fill(pick.word.toUpperCase())
  t.equal(
    await countLine(session, `${pick.matching.length} of ${total} entries`),
    `${pick.matching.length} of ${total} entries`,
  )

  await box.fill('zzqxv-no-question-says-this')
  t.equal(await countLine(session, `0 of ${total} entries`), `0 of ${total} entries`)
  t.equal((await shownEntries(session)).length, 0, 'nothing matches a word no entry holds')

  await box.fill('')
  t.equal(await countLine(session, `${total} of ${total} entries`), `${total} of ${total} entries`)
  t.equal((await shownEntries(session)).length, total, 'clearing the box shows every entry again')
  t.same(session.recording.pageErrors, [], 'no page error while filtering')
})
