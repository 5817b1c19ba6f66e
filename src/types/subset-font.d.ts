declare module 'subset-font' {
  export interface SubsetFontOptions {
    targetFormat?: 'sfnt' | 'woff' | 'woff2' | 'truetype'
    preserveNameIds?: number[]
    variationAxes?: Record<string, number | { min: number; max: number; default?: number }>
  }
  /** Cuts `font` down to the glyphs of `text` (HarfBuzz's subsetter). */
  export default function subsetFont(font: Buffer, text: string, options?: SubsetFontOptions): Promise<Buffer>
}
