import Document, { Head, Html, Main, NextScript, type DocumentContext, type DocumentInitialProps } from 'next/document'

/**
 * The nonce the middleware made for this request (x-nonce), on every script Next writes, as Next's CSP guide does it
 * for the pages router. A page prerendered at build time (getStaticProps, the 404) has no request: its HTML carries
 * no nonce, so the middleware gives those paths a policy without one (see middleware.ts).
 */
interface Props extends DocumentInitialProps {
  nonce?: string
}

export default class CourierDocument extends Document<Props> {
  static override async getInitialProps(context: DocumentContext): Promise<Props> {
    const initial = await Document.getInitialProps(context)
    const header = context.req?.headers['x-nonce']
    return { ...initial, nonce: typeof header === 'string' ? header : undefined }
  }

  override render() {
    const { nonce } = this.props
    return (
      <Html lang="en">
        <Head nonce={nonce}>
          {/* What Courier's index.html links besides its own chunks: the favicon and the Latin Inter face. */}
          <link rel="icon" href="/favicon.ico" />
          <link rel="preload" href="/fonts/inter-latin-wght-normal.woff2" as="font" type="font/woff2" crossOrigin="" />
        </Head>
        <body>
          <Main />
          <NextScript nonce={nonce} />
        </body>
      </Html>
    )
  }
}
