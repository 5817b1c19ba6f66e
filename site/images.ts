import type { PageImage } from './data-types.ts'

/** The site's photographs in client/public/images, with their real pixel sizes. Plain data: shared with the browser. */
export const siteImages: readonly PageImage[] = [
  {
    src: '/images/dunes.jpg',
    width: 2400,
    height: 1600,
    alt: 'Rolling sand dunes in layers under a violet and orange sky, with the sun low over the horizon.',
  },
  {
    src: '/images/harbour.jpg',
    width: 2048,
    height: 1365,
    alt:
      'A harbour at dusk: sailing boats on calm water in front of a city skyline with lit windows and a striped ' +
      'lighthouse.',
  },
  {
    src: '/images/mountains.jpg',
    width: 2200,
    height: 1400,
    alt: 'Snow-capped mountain ridges fading into blue morning mist above a dark pine forest.',
  },
  {
    src: '/images/aurora.jpg',
    width: 1920,
    height: 1280,
    alt: 'Green and violet northern lights over a starry sky, reflected in a still lake below a line of pine trees.',
  },
  {
    src: '/images/abstract.jpg',
    width: 1600,
    height: 1067,
    alt: 'Abstract art of overlapping textured discs in rust, ochre, teal and navy on a cream paper background.',
  },
]
