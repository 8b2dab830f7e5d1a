/**
 * Instants as the public page shows them: in the page's time zone, with its name, in the page's
 * language (i18n/Format; English as domain/InstantFormat writes it), inside a `<time>` that
 * carries the instant itself.
 */
import { DateTime } from "effect"

import type { Locale } from "../../domain/Locale.js"
import { formatInstant } from "../../i18n/Format.js"
import { html } from "./Html.js"

export const timeFormatter = (timeZone: string, locale: Locale) => (at: DateTime.Utc) =>
  html`<time datetime="${DateTime.formatIso(at)}">${formatInstant(DateTime.toDateUtc(at), timeZone, locale)}</time>`

export type TimeFormatter = ReturnType<typeof timeFormatter>
