/**
 * The message catalogues against the English one, at run time: every key English has (nested ones
 * too) is in every language, a message is a function in both or a string in both, and a function
 * takes as many values. TypeScript refuses a missing key already (`Messages`); this test catches
 * what a cast or a JavaScript edit would let through. Then what each message says: no markup
 * characters, every value placed, and plural forms by each language's rules.
 */
import { describe, expect, it } from "vitest"

import { formatLocal } from "../../src/domain/InstantFormat.js"
import { type Locale, locales } from "../../src/domain/Locale.js"
import { formatDay, formatInstant, formatPercent } from "../../src/i18n/Format.js"
import { catalogues, messagesFor } from "../../src/i18n/Messages.js"

type Node = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Node => typeof value === "object" && value !== null

/** What `other` lacks or has differently from `reference`, one line each with its path. */
const differences = (reference: Node, other: Node, path = ""): Array<string> => {
  const found: Array<string> = []
  for (const [key, expected] of Object.entries(reference)) {
    const at = `${path}${key}`
    if (!(key in other)) {
      found.push(`${at}: missing`)
      continue
    }
    const actual = other[key]
    if (typeof expected === "function") {
      if (typeof actual !== "function") found.push(`${at}: a ${typeof actual}, not a function`)
      else if (actual.length !== expected.length) {
        found.push(`${at}: takes ${actual.length} values, not ${expected.length}`)
      }
    } else if (isObject(expected)) {
      if (isObject(actual)) found.push(...differences(expected, actual, `${at}.`))
      else found.push(`${at}: a ${typeof actual}, not an object`)
    } else if (typeof actual !== typeof expected) {
      found.push(`${at}: a ${typeof actual}, not a ${typeof expected}`)
    } else if (actual === "") {
      found.push(`${at}: empty`)
    }
  }
  for (const key of Object.keys(other)) {
    if (!(key in reference)) found.push(`${path}${key}: not in English`)
  }
  return found
}

/** Every message of a catalogue with its path: strings as they are, functions called with markers. */
const texts = (
  node: Node,
  path = ""
): Array<{ readonly path: string; readonly text: string; readonly markers: Array<string> }> =>
  Object.entries(node).flatMap(([key, value]) => {
    const at = `${path}${key}`
    if (typeof value === "string") return [{ path: at, text: value, markers: [] }]
    if (typeof value === "function") {
      const markers = Array.from({ length: value.length }, (_, i) => `⟦${i}⟧`)
      return [{ path: at, text: String(value(...markers)), markers }]
    }
    return isObject(value) ? texts(value, `${at}.`) : []
  })

/** Values a message may leave out: the count of a plural word that is not written as a number. */
const unwritten = new Set(["uptime.withIncidents#1"])

describe("message catalogues", () => {
  it("the test finds a missing key, a nested one, a string for a function and a function of another arity", () => {
    const reference = { a: "x", b: { c: (n: number) => `${n}`, d: "y" } }
    expect(differences(reference, { a: "x", b: { c: () => "", e: "z" } })).toEqual([
      "b.c: takes 0 values, not 1",
      "b.d: missing",
      "b.e: not in English"
    ])
    expect(differences(reference, { a: "x", b: { c: "1", d: "y" } })).toEqual(["b.c: a string, not a function"])
    expect(differences(reference, { b: "z" })).toEqual(["a: missing", "b: a string, not an object"])
  })

  it.each(locales.filter((locale) => locale !== "en"))("%s has every key English has, and no other", (locale) => {
    expect(differences(catalogues.en, catalogues[locale])).toEqual([])
  })

  it.each([...locales])("%s: every message places its values and holds no markup characters", (locale) => {
    for (const { markers, path, text } of texts(messagesFor(locale))) {
      // The renderers put catalogue text into HTML attributes and elements as it is.
      expect(text, `${locale} ${path}`).not.toMatch(/[<>"&]/)
      expect(text.trim(), `${locale} ${path}`).not.toBe("")
      markers.forEach((marker, i) => {
        if (!unwritten.has(`${path}#${i}`)) expect(text, `${locale} ${path} value ${i}`).toContain(marker)
      })
    }
  })

  it.each([...locales])("%s names itself in its own language, different from every other", (locale) => {
    const names = locales.map((other) => messagesFor(other).languageName)
    expect(new Set(names).size).toBe(locales.length)
    expect(messagesFor(locale).languageName).not.toBe("")
  })
})

describe("plural forms", () => {
  const counts = [0, 1, 2, 5, 21] as const
  // What each language writes for these counts, by its CLDR rules (French and Brazilian
  // Portuguese take 0 as singular; Japanese and Chinese do not inflect).
  const expected: Record<Locale, { components: Array<string>; days: Array<string> }> = {
    en: {
      components: ["0 components", "1 component", "2 components", "5 components", "21 components"],
      days: ["0 days ago", "1 day ago", "2 days ago", "5 days ago", "21 days ago"]
    },
    de: {
      components: ["0 Komponenten", "1 Komponente", "2 Komponenten", "5 Komponenten", "21 Komponenten"],
      days: ["vor 0 Tagen", "vor 1 Tag", "vor 2 Tagen", "vor 5 Tagen", "vor 21 Tagen"]
    },
    fr: {
      components: ["0 composant", "1 composant", "2 composants", "5 composants", "21 composants"],
      days: [
        "il y a 0\u00a0jour",
        "il y a 1\u00a0jour",
        "il y a 2\u00a0jours",
        "il y a 5\u00a0jours",
        "il y a 21\u00a0jours"
      ]
    },
    es: {
      components: ["0 componentes", "1 componente", "2 componentes", "5 componentes", "21 componentes"],
      days: ["hace 0 días", "hace 1 día", "hace 2 días", "hace 5 días", "hace 21 días"]
    },
    "pt-BR": {
      components: ["0 componente", "1 componente", "2 componentes", "5 componentes", "21 componentes"],
      days: ["há 0 dia", "há 1 dia", "há 2 dias", "há 5 dias", "há 21 dias"]
    },
    ja: {
      components: counts.map((n) => `${n} 個のコンポーネント`),
      days: counts.map((n) => `${n} 日前`)
    },
    "zh-CN": {
      components: counts.map((n) => `${n} 个组件`),
      days: counts.map((n) => `${n} 天前`)
    }
  }

  it.each([...locales])("%s writes 0, 1, 2, 5 and 21 by its rules", (locale) => {
    const m = messagesFor(locale)
    expect(counts.map((n) => m.page.componentCount(n))).toEqual(expected[locale].components)
    expect(counts.map((n) => m.uptime.daysAgo(n))).toEqual(expected[locale].days)
  })

  it.each([...locales])("%s names one incident and several by its rules", (locale) => {
    const m = messagesFor(locale)
    const one = m.uptime.withIncidents("x", 1, "A")
    const two = m.uptime.withIncidents("x", 2, "A; B")
    const inflects = new Intl.PluralRules(locale).resolvedOptions().pluralCategories.length > 1
    if (inflects) expect(one).not.toBe(two.replace("A; B", "A"))
    else expect(one).toBe(two.replace("A; B", "A"))
  })
})

describe("dates and numbers", () => {
  const at = new Date(Date.UTC(2026, 2, 5, 22, 0))

  it("English keeps the page's format", () => {
    expect(formatInstant(at, "Europe/Paris", "en")).toBe(formatLocal(at, "Europe/Paris"))
    expect(formatInstant(at, "Europe/Paris", "en")).toBe("5 Mar 2026, 23:00 CET")
    expect(formatDay(at.getTime(), "en")).toBe("5 Mar 2026")
    expect(formatPercent(99.5, "en")).toBe("99.5 %")
  })

  it("other languages write the instant in the page's zone by their own conventions", () => {
    expect(formatInstant(at, "Europe/Paris", "de")).toBe("5. März 2026, 23:00 MEZ")
    expect(formatInstant(at, "Europe/Paris", "fr")).toMatch(/^5 mars 2026.* 23:00 /)
    expect(formatInstant(at, "Asia/Tokyo", "ja")).toMatch(/^2026年3月6日 07:00 /)
    expect(formatInstant(at, "Asia/Shanghai", "zh-CN")).toMatch(/^2026年3月6日.*06:00/)
    expect(formatDay(at.getTime(), "es")).toBe("5 mar 2026")
    expect(formatPercent(99.5, "de")).toBe("99,5\u00a0%")
    expect(formatPercent(99.5, "ja")).toBe("99.5%")
  })
})
