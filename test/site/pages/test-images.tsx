import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-images.server.ts'
import { Image } from '../../../client/components/image.tsx'
import { contentColumn } from '../../../src/common/image-sources.ts'
import type { PageImage } from '../../../site/data-types.ts'

export const page = definePage<typeof server>({
  path: '/__test/images',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Images') }),
})

export interface TestImagesData {
  /** Every image of the site's public folder (client/public/images/), with its real pixel size. */
  images: PageImage[]
  /** With `?hero`: the first of them, above the others, with priority (eager, preloaded with the shell). */
  hero?: PageImage
}

/** The site's public images through the optimizer, one under the other, each as wide as the content column (lazy: no
 * priority); with `?hero`, one with priority above them. Test routes only. */
export default function TestImagesPage({ data }: PageComponentProps<TestImagesData>) {
  return (
    <article>
      <h1>Images</h1>
      {data.hero ? <Image className="hero" {...data.hero} slot={contentColumn} priority /> : null}
      <div className="test-images">
        {data.images.map((image) => (
          <p key={image.src}>
            <Image {...image} slot={contentColumn} />
          </p>
        ))}
      </div>
    </article>
  )
}
