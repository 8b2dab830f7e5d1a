/**
 * Uptime Kuma's groupings as this service's groups and pages. Kuma groups monitors twice: under
 * `group` monitors (its dashboard's tree), and in the sections of each status page (its `group`
 * table, monitors listed by `monitor_group`). A component is in one group here, and a page lists
 * groups and components, so:
 *
 * - Each section becomes a group (`uptime-kuma/group/<id>`), and a monitor joins the first
 *   section that shows it (pages by id, sections and their monitors by weight). A `group`
 *   monitor listed in a section stands for the monitors under it, in id order.
 * - A monitor shown in no section joins the group made of its Kuma group monitor
 *   (`uptime-kuma/monitor/<id>`), if it has one; a group monitor left without members is none.
 * - A page lists its sections' groups in order, and on their own the monitors of a section that
 *   joined an earlier one (they show after the groups, as a page here orders them). So each page
 *   shows the monitors Kuma's showed, under the same headings where it can.
 * - A component is public when a page shows it. Those on no Kuma page are made private, so the
 *   default page, which shows every public component, shows nothing Kuma did not.
 */
import { Schema } from "effect"

import { GroupEntry, PageEntry } from "../../domain/Configuration.js"
import type { SkippedRecord } from "../../domain/ImportBundle.js"
import { DomainName } from "../../domain/StatusPage.js"
import { monitorKey } from "./kumaMonitor.js"
import { checkedEntry, flag, idOf, type KumaRow, num, recordName, skip, text } from "./KumaRow.js"

export interface LayoutInput {
  /** Every row of Kuma's `monitor` table, groups included, by id. */
  readonly monitors: ReadonlyArray<KumaRow>
  /** The ids of the monitors imported as components. */
  readonly imported: ReadonlySet<number>
  readonly pages: ReadonlyArray<KumaRow>
  /** Kuma's `group` table: the pages' sections. */
  readonly sections: ReadonlyArray<KumaRow>
  /** Kuma's `monitor_group` table: the monitors of each section. */
  readonly sectionMonitors: ReadonlyArray<KumaRow>
  /** Kuma's `status_page_cname` table: the pages' domains. */
  readonly domains: ReadonlyArray<KumaRow>
}

export interface Layout {
  readonly groups: ReadonlyArray<typeof GroupEntry.Encoded>
  /** The imported monitors in the order their components go: by group, then ungrouped. */
  readonly order: ReadonlyArray<number>
  /** Each grouped component's group key, by Kuma monitor id. */
  readonly groupOf: ReadonlyMap<number, string>
  /** The monitors a page shows: their components are public. */
  readonly shown: ReadonlySet<number>
  readonly pages: ReadonlyArray<typeof PageEntry.Encoded>
  /** The monitors each imported page shows, by Kuma's page id. */
  readonly pageMonitors: ReadonlyMap<number, ReadonlyArray<number>>
  readonly skipped: ReadonlyArray<SkippedRecord>
}

const byWeight = (a: KumaRow, b: KumaRow) => (num(a, "weight") ?? 0) - (num(b, "weight") ?? 0) || idOf(a) - idOf(b)

const maxItems = 500

/** Settings of a Kuma page that have no counterpart, when set. */
const pageExtras = (row: KumaRow): Array<[column: string, reason: string]> => {
  const extras: Array<[string, string]> = []
  if (text(row, "footer_text") !== null) {
    extras.push(["footer_text", "has no counterpart: a page here has footer links (a label and a URL each), not text"])
  }
  if (text(row, "custom_css") !== null) {
    extras.push(["custom_css", "has no counterpart: a page here takes a brand colour and a logo"])
  }
  for (const column of ["analytics_id", "analytics_script_url", "google_analytics_tag_id"]) {
    if (text(row, column) !== null) extras.push([column, "has no counterpart: the page loads no script"])
  }
  const icon = text(row, "icon")
  if (icon !== null && icon !== "/icon.svg") {
    extras.push(["icon", "is a file on the Kuma server: set the page's logoUrl to where the logo is served"])
  }
  if (flag(row, "show_tags")) extras.push(["show_tags", "has no counterpart: tags are not imported"])
  if (flag(row, "show_certificate_expiry")) extras.push(["show_certificate_expiry", "has no counterpart on the page"])
  if (text(row, "password") !== null) {
    extras.push(["password", "is stored hashed by Kuma: set the page's audience to protected with a new password"])
  }
  return extras
}

export const kumaLayout = (input: LayoutInput): Layout => {
  const skipped: Array<SkippedRecord> = []
  const rows = new Map(input.monitors.map((row) => [idOf(row), row]))
  const isGroup = (id: number) => text(rows.get(id) ?? {}, "type") === "group"
  const children = (id: number) => input.monitors.filter((row) => num(row, "parent") === id).map(idOf)

  /** The imported monitors a section entry stands for: itself, or all under a group monitor. */
  const expand = (id: number, seen: Set<number> = new Set()): Array<number> => {
    if (seen.has(id)) return []
    seen.add(id)
    if (isGroup(id)) return children(id).flatMap((child) => expand(child, seen))
    return input.imported.has(id) ? [id] : []
  }

  const groups: Array<typeof GroupEntry.Encoded> = []
  const members = new Map<string, Array<number>>()
  const groupOf = new Map<number, string>()
  const shown = new Set<number>()
  const pages: Array<typeof PageEntry.Encoded> = []
  const pageMonitors = new Map<number, ReadonlyArray<number>>()

  for (const page of input.pages) {
    const slug = (text(page, "slug") ?? "").toLowerCase()
    const record = recordName("status page", page, slug)
    const description = text(page, "description")
    const domains = input.domains.filter((row) => num(row, "status_page_id") === idOf(page))
      .map((row) => (text(row, "domain") ?? "").trim().toLowerCase())
    const domain = domains.find((name) => Schema.is(DomainName)(name))
    const fields = {
      slug,
      title: text(page, "title") ?? slug,
      ...(description === null ? {} : { description }),
      ...(domain === undefined ? {} : { domain })
    }
    const checked = checkedEntry(PageEntry, fields)
    if ("problem" in checked) {
      skipped.push(skip(record, `it would be refused: ${checked.problem}`))
      continue
    }
    // Kuma's slugs may differ in case only; a page's key here is its slug in lower case.
    if (pages.some((other) => other.slug === slug)) {
      skipped.push(skip(record, "its slug in lower case is an earlier page's"))
      continue
    }
    for (const [column, reason] of pageExtras(page)) skipped.push(skip(`${record}: ${column}`, reason))
    for (const other of domains.filter((name) => name !== domain)) {
      skipped.push(skip(`${record}: domain ${JSON.stringify(other)}`, "a page here has one domain"))
    }

    const items: Array<{ type: "group" | "component"; key: string }> = []
    const onPage: Array<number> = []
    for (const section of input.sections.filter((row) => num(row, "status_page_id") === idOf(page)).sort(byWeight)) {
      const sectionKey = `uptime-kuma/group/${idOf(section)}`
      const sectionRecord = recordName("status page section", section, text(section, "name"))
      const listed = input.sectionMonitors.filter((row) => num(row, "group_id") === idOf(section)).sort(byWeight)
      const monitors = [...new Set(listed.flatMap((row) => expand(num(row, "monitor_id") ?? 0)))]
      const group = { key: sectionKey, name: text(section, "name") ?? "", isPublic: true }
      const valid = checkedEntry(GroupEntry, group)
      if ("problem" in valid) skipped.push(skip(sectionRecord, `its group would be refused: ${valid.problem}`))
      const joining = "problem" in valid ? [] : monitors.filter((id) => !groupOf.has(id))
      if (joining.length > 0) {
        groups.push(group)
        members.set(sectionKey, joining)
        for (const id of joining) groupOf.set(id, sectionKey)
        items.push({ type: "group", key: sectionKey })
      } else if (!("problem" in valid)) {
        skipped.push(skip(
          sectionRecord,
          monitors.length === 0
            ? "shows no imported monitor"
            : "every monitor in it is in an earlier section's group: the page lists them on their own"
        ))
      }
      for (const id of monitors) {
        if (groupOf.get(id) !== sectionKey) items.push({ type: "component", key: monitorKey(id) })
        shown.add(id)
        if (!onPage.includes(id)) onPage.push(id)
      }
    }
    if (items.length > maxItems) skipped.push(skip(record, `only its first ${maxItems} entries are listed`))
    pages.push({ ...fields, items: items.slice(0, maxItems) })
    pageMonitors.set(idOf(page), onPage)
  }

  // Monitors on no page: into their Kuma group monitor's group.
  for (const row of input.monitors.filter((row) => text(row, "type") === "group")) {
    const id = idOf(row)
    const own = children(id).filter((child) => input.imported.has(child) && !groupOf.has(child))
    const record = recordName("monitor", row, text(row, "name"))
    if (own.length === 0) {
      const under = children(id).filter((child) => input.imported.has(child))
      skipped.push(skip(
        `${record} (type group)`,
        under.length === 0
          ? "no group is made of it: no monitor directly under it is imported"
          : "no group is made of it: every monitor under it is in the group of a status page section that shows it"
      ))
      continue
    }
    const description = text(row, "description")
    const group = {
      key: monitorKey(id),
      name: text(row, "name") ?? "",
      ...(description === null ? {} : { description }),
      isPublic: own.some((child) => shown.has(child))
    }
    const valid = checkedEntry(GroupEntry, group)
    if ("problem" in valid) {
      skipped.push(skip(`${record} (type group)`, `its group would be refused: ${valid.problem}`))
      continue
    }
    groups.push(group)
    members.set(group.key, own)
    for (const child of own) groupOf.set(child, group.key)
  }

  const grouped = groups.flatMap((group) => members.get(group.key) ?? [])
  const ungrouped = [...input.imported].filter((id) => !groupOf.has(id)).sort((a, b) => a - b)
  return { groups, order: [...grouped, ...ungrouped], groupOf, shown, pages, pageMonitors, skipped }
}
