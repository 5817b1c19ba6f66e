import type { Plugin } from 'vite'

/**
 * Preloads the body font: a `<link rel="preload" as="font">` for each emitted font whose name matches, written
 * into the built index.html, so the browser fetches Inter with the CSS instead of after it.
 */
export function fontPreload({ match }: { match: RegExp }): Plugin {
  return {
    name: 'courier:font-preload',
    enforce: 'post',
    applyToEnvironment: (environment) => environment.name === 'client',
    generateBundle: {
      // After Vite writes index.html, and before the deployment id plugin (listed after this one) stamps references.
      order: 'post',
      handler(_outputOptions, bundle) {
        const fonts = Object.keys(bundle).filter((fileName) => match.test(fileName))
        const html = Object.values(bundle).find((output) => output.fileName.endsWith('.html'))
        if (!html || html.type !== 'asset' || typeof html.source !== 'string' || fonts.length === 0) return
        const base = this.environment.config.base
        const links = fonts
          .map((fileName) => `<link rel="preload" href="${base}${fileName}" as="font" type="font/woff2" crossorigin>`)
          .join('\n    ')
        html.source = html.source.replace('</head>', `  ${links}\n  </head>`)
      },
    },
  }
}
