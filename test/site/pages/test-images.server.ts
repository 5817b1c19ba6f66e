import { defineLoader } from '../../../client/page.ts'
import { publicImages } from '../test-loaders.ts'
import type { TestImagesData } from './test-images.tsx'

export const load = defineLoader<TestImagesData>(async ({ query }) => {
  const images = await publicImages()
  const [hero, ...rest] = images
  return { props: query.hero === undefined || !hero ? { images } : { images: rest, hero } }
})
