import Head from 'next/head'
import type { PageHead } from '../site'

/** The page's <title> and description, as Courier's page table gives them (generated/site.json). */
export function PageHeadTags({ head }: { head: PageHead }) {
  return (
    <Head>
      <title>{head.title}</title>
      {head.description ? <meta name="description" content={head.description} /> : null}
    </Head>
  )
}
