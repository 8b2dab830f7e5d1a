/**
 * The day labels of the public page's uptime bars as the page writes them ("1 Sept 2026": en-GB,
 * UTC, the Intl options of src/public/render/UptimeBar.ts), for browser tests on a live stack. A
 * bar's days follow the moment the page read its clock, so a test accepts the label of any day
 * from the stack's start to now (two around a UTC midnight) and assumes no shape of month names:
 * the machine's date may be any day of the year.
 */
import { expect } from "vitest"

import { uptimeBarDays } from "../../src/domain/Uptime.js"

const day = 86_400_000
const dayFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" })

/** The labels cell `index` (0 the oldest, the last today) of a bar drawn between `from` and `to` may carry. */
export const barDayLabels = (index: number, from: number, to = Date.now()) => {
  const labels = new Set<string>()
  for (let today = Math.floor(from / day) * day; today <= to; today += day) {
    labels.add(dayFormat.format(today - (uptimeBarDays - 1 - index) * day))
  }
  return [...labels]
}

/** What cell `index` of a bar drawn since `from` says of its day, once its day label is checked. */
export const barCellDetail = (text: string | null, index: number, from: number) => {
  const [label = "", ...detail] = (text ?? "").split(": ")
  expect(barDayLabels(index, from)).toContain(label)
  return detail.join(": ")
}
