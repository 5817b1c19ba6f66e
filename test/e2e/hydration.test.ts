/**
 * React takes over the server's HTML on every page, and the page then answers the user: on /faq the filter box
 * narrows the list and the count follows.
 */
import t from 'tap'
import { narrowingWord, type FaqEntry } from './faq-entries.ts'
import { firstGuide, startSuite, staticPaths, type Session } from './harness.ts'

const suite = await startSuite(t)

t.test('every page hydrates', async (t) => {
  const session = await suite.open(t)
  const guide = await firstGuide(session)
  for (const path of [...staticPaths, guide.href, '/no-such-page']) {
    await session.goto(path)
    t.ok(await session.waitForHydration(), `${path}: <html data-hydrated="true"> after load`)
  }
})

async function shownEntries(session: Session): Promise<FaqEntry[]> {
  return session.page.locator('main .faq-entry').evaluateAll((items) =>
    items.map((item) => ({
      question: item.querySelector('dt')?.textContent ?? '',
      answer: item.querySelector('dd')?.textContent ?? '',
    })),
  )
}

/** Waits (bounded) until the count line reads `expected`; returns what it read last. */
async function countLine(session: Session, expected: string): Promise<string> {
  const count = session.page.locator('main .faq-count')
  await session.page
    .waitForFunction((text) => document.querySelector('main .faq-count')?.textContent === text, expected)
    .catch(() => undefined)
  return (await count.textContent()) ?? ''
}

t.test('typing in the FAQ filter narrows the list and updates the count', async (t) => {
  const session = await suite.open(t)
  await session.goto('/faq')
  t.ok(await session.waitForHydration(), 'hydrated')
  const all = await shownEntries(session)
  const total = all.length
  t.ok(total > 1, `there are questions to filter (${total})`)
  const pick = narrowingWord(all)
  if (!pick) return t.fail('no word of the questions narrows the list: the FAQ content cannot exercise the filter')

  const box = session.page.getByRole('searchbox', { name: 'Filter questions' })
  await box.pressSequentially(pick.word)
  t.equal(await countLine(session, `${pick.matching.length} of ${total} questions`), `${pick.matching.length} of ${total} questions`)
  t.same(
    (await shownEntries(session)).map((entry) => entry.question),
    pick.matching.map((entry) => entry.question),
    `"${pick.word}" shows exactly the questions that mention it`,
  )

  // Case is ignored, like the user expects of a search box.
  await box.fill(pick.word.toUpperCase())
  t.equal(await countLine(session, `${pick.matching.length} of ${total} questions`), `${pick.matching.length} of ${total} questions`)

  await box.fill('zzqxv-no-question-says-this')
  t.equal(await countLine(session, `0 of ${total} questions`), `0 of ${total} questions`)
  t.equal((await shownEntries(session)).length, 0, 'nothing matches a word no question holds')

  await box.fill('')
  t.equal(await countLine(session, `${total} of ${total} questions`), `${total} of ${total} questions`)
  t.equal((await shownEntries(session)).length, total, 'clearing the box shows every question again')
  t.same(session.recording.pageErrors, [], 'no page error while filtering')
})
