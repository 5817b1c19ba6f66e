import { defineLoader } from '../../client/page.ts'
import { siteImages } from '../images.ts'

export const load = defineLoader(() => ({ props: { images: [...siteImages] } }))
