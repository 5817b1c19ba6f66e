/** The test build's filter page's entries (test/site/pages/test-filter.tsx) as the filter tests read them, and a word
 * to type that narrows them. */
export interface FilterEntry {
  question: string
  answer: string
}

/** A word of some question that matches some entries but not all: typing it must visibly narrow the list. */
export function narrowingWord(entries: FilterEntry[]): { word: string; matching: FilterEntry[] } | undefined {
  const haystacks = entries.map((entry) => `${entry.question} ${entry.answer}`.toLowerCase())
  for (const entry of entries) {
    for (const word of entry.question.toLowerCase().match(/[a-z]{5,}/g) ?? []) {
      const matching = entries.filter((_entry, index) => haystacks[index]!.includes(word))
      if (matching.length > 0 && matching.length < entries.length) return { word, matching }
    }
  }
  return undefined
}
