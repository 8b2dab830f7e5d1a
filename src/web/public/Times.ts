/** Instants as the public page shows them: in the organization's time zone, with its abbreviation. */
import { DateTime } from "effect"

import { html } from "./Html.js"

export const timeFormatter = (timeZone: string) => {
  const format = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short"
  })
  return (at: DateTime.Utc) =>
    html`<time datetime="${DateTime.formatIso(at)}">${format.format(DateTime.toDateUtc(at))}</time>`
}

export type TimeFormatter = ReturnType<typeof timeFormatter>
