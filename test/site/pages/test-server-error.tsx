/** Never rendered: its loader (src/pages/loaders.ts) throws, so the visitor gets the 500 page. Test routes only. */
export default function ServerErrorPage() {
  return <h1>This page's loader always fails</h1>
}
