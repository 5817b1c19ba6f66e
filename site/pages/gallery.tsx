import { definePage, type PageProps } from '../../client/page.ts'
import { titled } from '../site.ts'
import type * as server from './gallery.server.ts'
import { Image } from '../../client/components/image.tsx'
import type { ImageSlot } from '../../src/common/image-sources.ts'
import type { GalleryData } from '../data-types.ts'

export const page = definePage<typeof server>({
  path: '/gallery',
  kind: 'static',
  head: () => ({ title: titled('Gallery'), description: 'Photographs served through the image optimizer.' }),
})

export type { GalleryData }

/** Two columns from 600 px (each half the column less the gap), one below: what `sizes` tells the browser. */
const galleryCell: ImageSlot = {
  sizes: '(min-width: 768px) 356px, (min-width: 600px) calc(50vw - 28px), calc(100vw - 40px)',
  // One column on the narrowest phones (320 - 40); at 599 px wide, one column of 559 px is the widest cell.
  minCssPx: 280,
  maxCssPx: 559,
}

export default function GalleryPage({ data }: PageProps<typeof server>) {
  return (
    <article className="gallery-page">
      <h1>Gallery</h1>
      <p className="lead">
        Every photograph below comes through the image optimizer: resized to a width the browser picks from the srcset,
        in AVIF or WebP when it accepts them, cached on disk.
      </p>
      <ul className="gallery">
        {data.images.map((image) => (
          <li key={image.src}>
            <figure>
              <Image {...image} slot={galleryCell} />
              <figcaption>{image.alt}</figcaption>
            </figure>
          </li>
        ))}
      </ul>
    </article>
  )
}
