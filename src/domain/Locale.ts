/**
 * The languages the public side speaks (docs/public-page.md, "Languages"): the page, its
 * e-mails, the preferences page and the feeds' own words. Operator-written text is shown as
 * written. Right-to-left scripts are not supported yet.
 */
import { Schema } from "effect"

/** Every language with a message catalogue, as BCP 47 tags. */
export const locales = ["en", "de", "fr", "es", "pt-BR", "ja", "zh-CN"] as const

export const Locale = Schema.Literals(locales).annotate({
  identifier: "Locale",
  description: "A language the public side speaks: `en`, `de`, `fr`, `es`, `pt-BR`, `ja` or `zh-CN`."
})
export type Locale = typeof Locale.Type

export const isLocale = (value: string): value is Locale => (locales as ReadonlyArray<string>).includes(value)

/**
 * The offered language a reader asks for: `?lang=` when it names one exactly, else the best of
 * `Accept-Language` (quality order; a tag matches an offered one of the same language, `pt` →
 * `pt-BR`, `zh-Hans-CN` → `zh-CN`), else `fallback`. Bounded work whatever the header holds.
 */
export const negotiate = (
  offered: ReadonlyArray<Locale>,
  fallback: Locale,
  acceptLanguage: string | undefined,
  asked?: string | undefined
): Locale => {
  if (offered.length <= 1) return fallback
  if (asked !== undefined) {
    const exact = offered.find((locale) => locale.toLowerCase() === asked.toLowerCase())
    if (exact !== undefined) return exact
  }
  if (acceptLanguage === undefined || acceptLanguage === "") return fallback
  let best: { readonly locale: Locale; readonly q: number } | undefined
  for (const part of acceptLanguage.slice(0, 512).split(",", 16)) {
    const [tag = "", ...params] = part.trim().split(";")
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith("q="))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!(q > 0) || (best !== undefined && q <= best.q)) continue
    const match = matchTag(offered, tag.trim().toLowerCase())
    if (match !== undefined) best = { locale: match, q }
  }
  return best?.locale ?? fallback
}

const matchTag = (offered: ReadonlyArray<Locale>, tag: string): Locale | undefined => {
  if (tag === "" || tag === "*") return undefined
  const exact = offered.find((locale) => locale.toLowerCase() === tag)
  if (exact !== undefined) return exact
  const language = tag.split("-")[0]
  return offered.find((locale) => locale.toLowerCase().split("-")[0] === language)
}
