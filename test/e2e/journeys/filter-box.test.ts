/**
 * The page answers the user in every engine: typed key by key into the filter box of the test build's filter page, a
 * word narrows the list to the entries that mention it (case ignored) and the count follows; a word no entry holds
 * shows none.
 */
import t from 'tap'
import { narrowingWord, type FilterEntry } from '../filter-entries.ts'
import { startJourneys, type JourneySession } from '../journey.ts'
import { filterPage } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const box = 'main .filter input[type="search"]'

function shown(session: JourneySession): Promise<FilterEntry[]> {
  return session.evaluate(
    () =>
      [...document.querySelectorAll('main .filter-entry')].map((item) => ({
        question: item.querySelector('dt')?.textContent ?? '',
        answer: item.querySelector('dd')?.textContent ?? '',
      })),
    null,
  )
}

/** Whether the count line comes to read `expected` (bounded). */
function countReads(session: JourneySession, expected: string): Promise<boolean> {
  return session.waitFor((text) => document.querySelector('main .filter-count')?.textContent === text, expected)
}

t.test('typing in the filter box narrows the list and updates the count', async (t) => {
  const session = await suite.open(t)
  await session.goto(filterPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  const all = await shown(session)
  const total = all.length
  t.ok(total > 1, `there are entries to filter (${total})`)
  const pick = narrowingWord(all)
  if (!pick) return t.fail('no word of the questions narrows the list: the content cannot exercise the filter')

  // Upper case: the filter ignores case, as a user expects of a search box.
  await session.tab.type(box, pick.word.toUpperCase())
  t.ok(await countReads(session, `${pick.matching.length} of ${total} entries`), 'the count follows')
  t.same(
    (await shown(session)).map((entry) => entry.question),
    pick.matching.map((entry) => entry.question),
    `"${pick.word.toUpperCase()}" shows exactly the questions that mention it`,
  )
  await session.tab.type(box, 'zzqxv')
  t.ok(await countReads(session, `0 of ${total} entries`), 'a word no entry holds: none')
  t.equal((await shown(session)).length, 0)
  t.same(await session.consoleErrors(), [], 'no console error')
})
