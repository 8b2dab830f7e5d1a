/** Instants as the public page shows them: in the organization's time zone, with its abbreviation (domain/InstantFormat). */
import { DateTime } from "effect"

import { formatLocal } from "../../domain/InstantFormat.js"
import { html } from "./Html.js"

export const timeFormatter = (timeZone: string) => (at: DateTime.Utc) =>
  html`<time datetime="${DateTime.formatIso(at)}">${formatLocal(DateTime.toDateUtc(at), timeZone)}</time>`

export type TimeFormatter = ReturnType<typeof timeFormatter>
