/**
 * Where the example site's content lives and what each file must say (docs/content.md). The content is read at run
 * time by the page loaders (src/content/), never bundled: editing a file and revalidating changes the site without a
 * build or a deploy.
 */
export const contentLayout = Object.freeze({
  /** CONTENT_DIR's default, from the project root. */
  defaultDir: 'content',
  /** One guide per file, `guides/<slug>.md`: the file name is the guide's URL segment. */
  guidesDir: 'guides',
  /** One question of the FAQ per file, `faq/<anchor>.md`: the file name is its anchor on the page. */
  faqDir: 'faq',
  /** A file name (without `.md`) as a URL or an anchor keeps it readable: lower-case words joined by dashes. */
  namePattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  /** Markdown files larger than this are refused (COURIER_ERR_CONTENT_INVALID): a page's content is prose, and a
   * runaway file must not be parsed and sent as page data on every request. */
  maxFileBytes: 256 * 1024,
})
