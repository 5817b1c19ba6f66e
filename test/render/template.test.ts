import t from 'tap'
import { compileTemplate, entryLoaderUrls, noncePlaceholderValue } from '../../src/render/template.ts'

const html = `<!doctype html><html data-dpl-id="%COURIER_DEPLOYMENT_ID%"><head><!--courier-head--><script type="module" src="/a.js" nonce="${noncePlaceholderValue}"></script></head><body><div id="root"><!--courier-app--></div><!--courier-state--></body></html>`

t.test('fills title, meta, nonce and state', async (t) => {
  const template = compileTemplate(html, '__DATA__', 'dpl-1')
  const open = template.open({ title: 'A <b> & "c"', description: 'd"' }, 'abc+/=')
  t.match(open, '<html data-dpl-id="dpl-1">', 'the deployment id is filled in')
  t.match(open, '<title>A &lt;b&gt; &amp; &quot;c&quot;</title>')
  t.match(open, '<meta name="description" content="d&quot;" />')
  t.match(
    open,
    '<script type="module" fetchpriority="low" src="/a.js" nonce="abc+/="></script>',
    'at low priority, like a deferred script',
  )
  t.notMatch(open, noncePlaceholderValue)
  const close = template.close('{"a":1}', 'abc+/=')
  t.match(close, '<script id="__DATA__" type="application/json" nonce="abc+/=">{"a":1}</script>')
})

t.test('no nonce: the attribute goes away', async (t) => {
  const template = compileTemplate(html, '__DATA__', 'dpl-1')
  const open = template.open({ title: 'x' }, undefined)
  t.match(open, '<script type="module" fetchpriority="low" src="/a.js"></script>')
  t.notMatch(open, 'nonce')
})

t.test('a template without the markers is refused at start-up', async (t) => {
  t.throws(() => compileTemplate('<html></html>', 'x', 'dpl-1'), { name: 'TemplateError' })
})

t.test('what goes after the app lands right after #root, before the state', async (t) => {
  const template = compileTemplate(html, '__DATA__', 'dpl-1')
  t.equal(
    template.close('{}', undefined, '<section>late</section>'),
    '</div><section>late</section><script id="__DATA__" type="application/json">{}</script></body></html>',
  )
  t.equal(
    template.close('{}', undefined),
    '</div><script id="__DATA__" type="application/json">{}</script></body></html>',
  )
})

t.test('stylesheets and the font come before the entry script, page chunks after it', async (t) => {
  const source =
    '<html><head><!--courier-head--><script type="module" src="/e.js" nonce="__COURIER_NONCE__"></script>' +
    '<link rel="stylesheet" href="/s.css" nonce="__COURIER_NONCE__"><link rel="preload" href="/f.woff2" as="font">' +
    '</head><body><div id="root"><!--courier-app--></div><!--courier-state--></body></html>'
  const open = compileTemplate(source, '__DATA__', 'dpl-1').open({ title: 'x', preloadModules: ['/p.js'] }, 'n1')
  const at = (text: string) => open.indexOf(text)
  t.ok(at('/s.css') < at('/e.js') && at('/f.woff2') < at('/e.js'), 'style and font before the script')
  t.ok(at('/e.js') < at('/p.js'), 'the page chunk after the entry')
  t.match(open, '<link rel="stylesheet" href="/s.css" nonce="n1">', 'the nonce still goes on each tag')
  t.match(open, /<\/head><body><div id="root">$/)
})

t.test('with startEntryAfterFirstPaint, a loader with the nonce starts the entry and the page chunks', async (t) => {
  const source =
    '<html><head><!--courier-head--><script type="module" crossorigin src="/e.js?dpl=a&amp;b" nonce="__COURIER_NONCE__"></script>' +
    '<link rel="stylesheet" href="/s.css" nonce="__COURIER_NONCE__"><link rel="preload" href="/f.woff2" as="font">' +
    '</head><body><div id="root"><!--courier-app--></div><!--courier-state--></body></html>'
  const template = compileTemplate(source, '__DATA__', 'dpl-1', { startEntryAfterFirstPaint: { fallbackMs: 1234 } })
  const open = template.open({ title: 'x', preloadModules: ['/p.js', '/q.js'] }, 'n1')
  t.notMatch(open, '<script type="module"', 'the entry is not named by a module script')
  t.notMatch(open, '<link rel="modulepreload"', 'nor are the page chunks preloaded in the head')
  t.match(open, '<script nonce="n1" data-entry="/e.js?dpl=a&amp;b" data-preload="/p.js /q.js">(function(s){')
  t.match(open, 'setTimeout(start,1234)', 'the configured bound')
  t.same(entryLoaderUrls(open), { entries: ['/e.js?dpl=a&b'], preloads: ['/p.js', '/q.js'] })
  const at = (text: string) => open.indexOf(text)
  t.ok(at('/s.css') < at('data-entry') && at('/f.woff2') < at('data-entry'), 'style and font before the loader')
  t.match(open, /<\/script><\/head><body><div id="root">$/)

  const other = template.open({ title: 'y' }, undefined)
  t.match(
    other,
    '<script data-entry="/e.js?dpl=a&amp;b">(function(s){',
    'no nonce, no attribute; no chunks, no data-preload',
  )
  const loaderText = (html: string) => /data-entry="[^"]*"[^>]*>([^]*?)<\/script>/.exec(html)![1]
  t.equal(loaderText(other), loaderText(open), 'the loader text is the same on every page')
})

t.test('startEntryAfterFirstPaint leaves a template without a module script as it is', async (t) => {
  const source =
    '<html><head><!--courier-head--></head><body><div id="root"><!--courier-app--></div><!--courier-state--></body></html>'
  const template = compileTemplate(source, '__DATA__', 'dpl-1', { startEntryAfterFirstPaint: { fallbackMs: 1 } })
  t.notMatch(template.open({ title: 'x', preloadModules: ['/p.js'] }, 'n1'), 'data-entry')
})

t.test('entryLoaderUrls reads what a served loader starts', async (t) => {
  const html =
    '<head><script nonce="x" data-entry="/e.js?a=1&amp;b=2" data-preload="/p.js /q.js">…</script>' +
    '<script data-entry="/f.js">…</script><script type="module" src="/ignored.js"></script></head>'
  t.same(entryLoaderUrls(html), { entries: ['/e.js?a=1&b=2', '/f.js'], preloads: ['/p.js', '/q.js'] })
  t.same(entryLoaderUrls('<html></html>'), { entries: [], preloads: [] })
})
