/**
 * Plural forms by the CLDR rules of a language (Intl.PluralRules): a catalogue gives the forms its
 * language has, and `other` always, as the form of any category it leaves out.
 */
export type PluralCategory = "zero" | "one" | "two" | "few" | "many" | "other"

export type PluralForms = { readonly other: string } & Partial<Record<Exclude<PluralCategory, "other">, string>>

/** The plural chooser of `locale` (a BCP 47 tag): `plural(n, { one: "1 day", other: "5 days" })`. */
export const pluralFor = (locale: string) => {
  const rules = new Intl.PluralRules(locale)
  return (n: number, forms: PluralForms): string => forms[rules.select(n)] ?? forms.other
}
