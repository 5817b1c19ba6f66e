/**
 * The body font's core subset (docs/rendering.md "Assets"; docs/performance.md "Font core subset").
 *
 * Inter's Latin file (@fontsource-variable/inter, 48 kB) covers U+0000-00FF and Latin punctuation; the site's text
 * uses printable ASCII and a handful of punctuation marks. The build cuts a core file holding only these (about 30 kB),
 * which every page preloads; the rest of the Latin range stays in the original file, declared with the remaining
 * `unicode-range`, so a page only downloads it when it shows one of those characters (a name with an accent, say).
 * Every code point here lies inside the Latin file's range, so no character changes face. client/styles/global.css
 * spells the same ranges; test/build/font-subset.test.ts checks the two agree and that the site's text stays inside.
 */
export const coreFontRanges: readonly (readonly [number, number])[] = Object.freeze([
  [0x20, 0x7e], // printable ASCII
  [0xa0, 0xa0], // no-break space
  [0xa9, 0xa9], // ©
  [0xb7, 0xb7], // · (the status page's separators)
  [0x2013, 0x2014], // – —
  [0x2018, 0x2019], // ‘ ’
  [0x201c, 0x201d], // “ ”
  [0x2022, 0x2022], // •
  [0x2026, 0x2026], // …
  [0x2028, 0x2029], // line and paragraph separators (a guide quotes them)
])
