/**
 * WCAG 2 contrast: the text colour for the organization's brand background. Of black and white,
 * the one with the higher contrast ratio always reaches at least 4.58:1, so AA holds for any brand.
 */
const channel = (value: number) => {
  const c = value / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}

/** Relative luminance of `#rrggbb`. */
export const luminance = (hex: string): number => {
  const n = Number.parseInt(hex.slice(1), 16)
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255)
}

export const contrastRatio = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

export const readableTextOn = (background: string): "#000000" | "#ffffff" =>
  contrastRatio(background, "#000000") >= contrastRatio(background, "#ffffff") ? "#000000" : "#ffffff"
