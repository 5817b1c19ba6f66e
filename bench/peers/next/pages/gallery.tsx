import type { GetStaticProps } from 'next'
import Image from 'next/image'
import { PageHeadTags } from '../components/page-head'
import site, { type GalleryData, type PageHead } from '../site'

interface Props {
  data: GalleryData
  head: PageHead
}

export const getStaticProps: GetStaticProps<Props> = async () => ({ props: site.gallery })

/** Courier's gallery (site/pages/gallery.tsx): the same markup and `sizes`, each photograph through next/image. */
export default function GalleryPage({ data, head }: Props) {
  return (
    <article className="gallery-page">
      <PageHeadTags head={head} />
      <h1>Gallery</h1>
      <p className="lead">
        Every photograph below comes through the image optimizer: resized to a width the browser picks from the srcset,
        in AVIF or WebP when it accepts them, cached on disk.
      </p>
      <ul className="gallery">
        {data.images.map((image) => (
          <li key={image.src}>
            <figure>
              <Image
                className="image"
                src={image.src}
                alt={image.alt}
                width={image.width}
                height={image.height}
                sizes="(min-width: 768px) 356px, (min-width: 600px) calc(50vw - 28px), calc(100vw - 40px)"
              />
              <figcaption>{image.alt}</figcaption>
            </figure>
          </li>
        ))}
      </ul>
    </article>
  )
}
