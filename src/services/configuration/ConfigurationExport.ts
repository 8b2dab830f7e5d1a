/**
 * Reads what is set up into a configuration document (src/domain/Configuration.ts): what
 * `status-page export` writes, and what `apply` compares the document with. An entity is called
 * by the key it was made under (configuration_keys), else by its id.
 *
 * Fields equal to what creation would give when they are left out are left out, so a document
 * says only what was chosen, and reads the same after a round trip. Secrets (a monitor's header
 * values, password and push token, a page's password, an on-call webhook's key) are written as
 * `${VARIABLE}` references: their values never leave the service this way (docs/configuration-as-code.md).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"

import type { Component } from "../../domain/Component.js"
import type { ComponentGroup } from "../../domain/ComponentGroup.js"
import {
  type ComponentEntry,
  type ConfigurationDocument,
  type ConfigurationKind,
  configurationVersion,
  type GroupEntry,
  type MaintenanceEntry,
  type MonitorEntry,
  type PageEntry,
  type TemplateEntry,
  type WebhookEntry
} from "../../domain/Configuration.js"
import type { IncidentTemplate } from "../../domain/IncidentTemplate.js"
import { Maintenance } from "../../domain/Maintenance.js"
import { maskedHeaderValue, type Monitor, monitorLimits, typeDefaults } from "../../domain/Monitor.js"
import type { Organization } from "../../domain/Organization.js"
import type { Page, PageRequest } from "../../domain/Page.js"
import type { StatusPage } from "../../domain/StatusPage.js"
import { isOnCallType, type Webhook } from "../../domain/Webhook.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { ConfigurationKeysRepo } from "../../persistence/ConfigurationKeysRepo.js"
import { IncidentTemplatesRepo } from "../../persistence/IncidentTemplatesRepo.js"
import { MaintenanceRepo } from "../../persistence/MaintenanceRepo.js"
import { MonitorsRepo } from "../../persistence/MonitorsRepo.js"
import { OrganizationRepo } from "../../persistence/OrganizationRepo.js"
import { StatusPagesRepo } from "../../persistence/StatusPagesRepo.js"
import { WebhooksRepo } from "../../persistence/WebhooksRepo.js"

/** The variable a secret is referred to by: `MONITOR_CHECKOUT_API_PASSWORD`. */
export const secretVariable = (kind: ConfigurationKind, key: string, ...field: ReadonlyArray<string>): string =>
  [kind, key, ...field].join("_").toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_|_$/g, "")

export const reference = (variable: string) => "${" + variable + "}"

/** Every item of a paged list. */
const everything = <A, E, R>(list: (page: PageRequest) => Effect.Effect<Page<A>, E, R>) =>
  Effect.gen(function*() {
    const items: Array<A> = []
    let cursor: string | undefined
    do {
      const page = yield* list({ limit: 1000, cursor })
      items.push(...page.items)
      cursor = page.next
    } while (cursor !== undefined)
    return items
  })

/** What is set up now, as the service stores it (secrets included: never answered as such). */
export interface Setup {
  readonly organization: Organization
  readonly groups: ReadonlyArray<ComponentGroup>
  readonly components: ReadonlyArray<Component>
  readonly templates: ReadonlyArray<IncidentTemplate>
  readonly monitors: ReadonlyArray<Monitor>
  readonly pages: ReadonlyArray<StatusPage>
  readonly webhooks: ReadonlyArray<Webhook>
  /** Windows to come or under way; of a series, its next occurrence. */
  readonly maintenance: ReadonlyArray<Maintenance>
  /** The key each entity is called by, per kind: made under, else its id. */
  readonly keyOf: (kind: ConfigurationKind, id: string) => string
  /** The entity a key names, per kind, if it exists. */
  readonly idOf: (kind: ConfigurationKind, key: string) => string | undefined
}

type Defined<T> =
  & { [K in keyof T as undefined extends T[K] ? never : K]: T[K] }
  & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> }

/** Leaves out the fields whose value is undefined. */
const defined = <T extends Record<string, unknown>>(fields: T): Defined<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Defined<T>

const unless = <A>(value: A, isDefault: boolean): A | undefined => isDefault ? undefined : value

// A list of components (a template's, a webhook's, a window's) is a set: written by key, sorted.

/** How secrets are written: as references (export), or as stored (to compare with a document). */
export type SecretsAs = "references" | "stored"

export const groupEntry = (setup: Setup, group: ComponentGroup): GroupEntry =>
  defined({
    key: setup.keyOf("group", group.id),
    name: group.name,
    description: unless(group.description, group.description === ""),
    displayOrder: group.displayOrder,
    isPublic: unless(group.isPublic, group.isPublic)
  })

export const componentEntry = (setup: Setup, component: Component): ComponentEntry =>
  defined({
    key: setup.keyOf("component", component.id),
    name: component.name,
    description: unless(component.description, component.description === ""),
    displayOrder: component.displayOrder,
    isPublic: unless(component.isPublic, component.isPublic),
    group: component.groupId === null ? undefined : setup.keyOf("group", component.groupId)
  })

export const templateEntry = (setup: Setup, template: IncidentTemplate): TemplateEntry =>
  defined({
    key: setup.keyOf("template", template.id),
    name: template.name,
    title: template.title,
    message: template.message,
    severity: unless(template.severity, template.severity === "minor"),
    status: unless(template.status, template.status === "investigating"),
    components: template.componentIds.length === 0
      ? undefined
      : template.componentIds.map((id) => setup.keyOf("component", id)).sort()
  })

export const monitorEntry = (setup: Setup, monitor: Monitor, secrets: SecretsAs): MonitorEntry => {
  const key = setup.keyOf("monitor", monitor.id)
  const defaults = typeDefaults(monitor.type)
  const isPush = monitor.type === "push"
  const secret = (stored: string, ...field: ReadonlyArray<string>) =>
    secrets === "stored" ? stored : reference(secretVariable("monitor", key, ...field))
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
  const intervalSeconds = monitor.intervalSeconds
  return defined({
    key,
    component: setup.keyOf("component", monitor.componentId),
    type: monitor.type,
    url: isPush ? undefined : monitor.url,
    // A push token is stored hashed: the reference lets a move keep the cron lines' URL.
    pushToken: isPush && secrets === "references" ? reference(secretVariable("monitor", key, "push-token")) : undefined,
    intervalSeconds: unless(intervalSeconds, intervalSeconds === monitorLimits.intervalSeconds.default),
    timeoutMs: unless(
      monitor.timeoutMs,
      monitor.timeoutMs === Math.min(monitorLimits.timeoutMs.default, intervalSeconds * 500)
    ),
    failureThreshold: unless(
      monitor.failureThreshold,
      monitor.failureThreshold === (isPush ? 1 : monitorLimits.failureThreshold.default)
    ),
    regions: isPush || monitor.regions === null ? undefined : monitor.regions,
    quorum: unless(monitor.quorum, isPush || monitor.quorum === "majority"),
    degradedAboveMs: monitor.degradedAboveMs ?? undefined,
    method: unless(monitor.method ?? undefined, monitor.method === defaults.method),
    headers: monitor.headers === null ? undefined : Object.fromEntries(
      Object.entries(monitor.headers).map(([name, value]) => [name, secret(value, "header", name)])
    ),
    body: monitor.body ?? undefined,
    expectedStatusCodes: unless(
      monitor.expectedStatusCodes ?? undefined,
      same(monitor.expectedStatusCodes, defaults.expectedStatusCodes)
    ),
    bodyContains: monitor.bodyContains ?? undefined,
    bodyNotContains: monitor.bodyNotContains ?? undefined,
    assertions: monitor.assertions ?? undefined,
    dnsRecordType: unless(monitor.dnsRecordType ?? undefined, monitor.dnsRecordType === defaults.dnsRecordType),
    dnsExpectedValues: monitor.dnsExpectedValues ?? undefined,
    password: monitor.password === null ? undefined : secret(monitor.password, "password"),
    grpcService: monitor.grpcService ?? undefined,
    pingCount: unless(monitor.pingCount ?? undefined, monitor.pingCount === defaults.pingCount),
    graceSeconds: unless(
      monitor.graceSeconds ?? undefined,
      !isPush || monitor.graceSeconds === Math.min(defaults.graceSeconds!, intervalSeconds)
    ),
    incidentPolicy: unless(monitor.incidentPolicy, monitor.incidentPolicy === "off"),
    incidentTemplate: monitor.incidentTemplateId === null
      ? undefined
      : setup.keyOf("template", monitor.incidentTemplateId),
    resolveAfterSeconds: unless(
      monitor.resolveAfterSeconds,
      monitor.resolveAfterSeconds === monitorLimits.resolveAfterSeconds.default
    ),
    paused: unless(monitor.paused, !monitor.paused)
  }) as MonitorEntry
}

export const pageEntry = (setup: Setup, page: StatusPage, secrets: SecretsAs): PageEntry =>
  defined({
    slug: page.slug,
    title: page.title ?? undefined,
    description: unless(page.description, page.description === ""),
    logoUrl: page.logoUrl ?? undefined,
    brandColor: page.brandColor ?? undefined,
    locale: page.locale,
    languages: page.languages,
    timeZone: page.timeZone ?? undefined,
    domain: page.domain ?? undefined,
    audience: unless(page.audience, page.audience === "public"),
    // Stored hashed: only a reference can be written, and compared only when it is given.
    password: page.audience === "protected" && secrets === "references"
      ? reference(secretVariable("page", page.slug, "password"))
      : undefined,
    isDefault: unless(page.isDefault, !page.isDefault),
    items: page.items?.map((item) => ({
      type: item.type,
      key: setup.keyOf(item.type === "component" ? "component" : "group", item.id)
    })),
    footerLinks: page.footerLinks.length === 0 ? undefined : page.footerLinks
  }) as PageEntry

export const webhookEntry = (setup: Setup, webhook: Webhook, secrets: SecretsAs): WebhookEntry => {
  const key = setup.keyOf("webhook", webhook.id)
  return defined({
    key,
    name: webhook.name,
    url: webhook.url,
    type: webhook.type,
    isActive: unless(webhook.isActive, webhook.isActive),
    notifyOnIncident: webhook.notifyOnIncident,
    notifyOnMaintenance: webhook.notifyOnMaintenance,
    notifyOnComponentChange: webhook.notifyOnComponentChange,
    notifyOnMonitor: webhook.notifyOnMonitor,
    components: webhook.componentIds?.map((id) => setup.keyOf("component", id)).sort(),
    integrationKey: isOnCallType(webhook.type)
      ? secrets === "stored"
        ? webhook.secret ?? undefined
        : reference(secretVariable("webhook", key, "integration-key"))
      : undefined
  }) as WebhookEntry
}

export const maintenanceEntry = (setup: Setup, window: Maintenance): MaintenanceEntry =>
  defined({
    key: setup.keyOf("maintenance", window.seriesId ?? window.id),
    title: window.title,
    description: unless(window.description, window.description === ""),
    scheduledStart: window.scheduledStart,
    scheduledEnd: window.scheduledEnd,
    components: window.componentIds.length === 0
      ? undefined
      : window.componentIds.map((id) => setup.keyOf("component", id)).sort(),
    recurrence: window.recurrence === null ? undefined : defined({
      frequency: window.recurrence.frequency,
      interval: window.recurrence.interval,
      count: window.recurrence.count === undefined
        ? undefined
        : window.recurrence.count - (window.occurrence ?? 0),
      until: window.recurrence.until
    })
  }) as MaintenanceEntry

export const organizationEntry = (organization: Organization) =>
  defined({
    name: organization.name,
    logoUrl: organization.logoUrl ?? undefined,
    brandColor: organization.brandColor,
    timezone: organization.timezone,
    maintenanceReminderHours: organization.maintenanceReminderHours
  })

/** The whole document, secrets as references; the entries in the order the service shows them. */
export const documentOf = (setup: Setup): ConfigurationDocument => {
  const nonEmpty = <A>(items: ReadonlyArray<A>) => items.length === 0 ? undefined : items
  // Entries made in one transaction share their creation time: by key, the order is the same everywhere.
  const byKey = <A extends { readonly key: string }>(items: ReadonlyArray<A>) =>
    [...items].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  return defined({
    version: configurationVersion,
    organization: organizationEntry(setup.organization),
    groups: nonEmpty(setup.groups.map((group) => groupEntry(setup, group))),
    components: nonEmpty(setup.components.map((component) => componentEntry(setup, component))),
    templates: nonEmpty(byKey(setup.templates.map((template) => templateEntry(setup, template)))),
    monitors: nonEmpty(byKey(setup.monitors.map((monitor) => monitorEntry(setup, monitor, "references")))),
    pages: nonEmpty(
      byKey(setup.pages.map((page) => ({ key: page.slug, entry: pageEntry(setup, page, "references") })))
        .map(({ entry }) => entry)
    ),
    webhooks: nonEmpty(byKey(setup.webhooks.map((webhook) => webhookEntry(setup, webhook, "references")))),
    maintenance: nonEmpty(
      setup.maintenance.map((window) => maintenanceEntry(setup, window)).sort((a, b) =>
        DateTime.toEpochMillis(a.scheduledStart) - DateTime.toEpochMillis(b.scheduledStart) ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
      )
    )
  }) as ConfigurationDocument
}

const byOrder = <A extends { readonly displayOrder: number; readonly name: string }>(a: A, b: A) =>
  a.displayOrder - b.displayOrder || a.name.localeCompare(b.name)

export class ConfigurationExport extends Context.Service<ConfigurationExport>()("ConfigurationExport", {
  make: Effect.gen(function*() {
    const keys = yield* ConfigurationKeysRepo
    const organizations = yield* OrganizationRepo
    const groups = yield* ComponentGroupsRepo
    const components = yield* ComponentsRepo
    const templates = yield* IncidentTemplatesRepo
    const monitors = yield* MonitorsRepo
    const pages = yield* StatusPagesRepo
    const webhooks = yield* WebhooksRepo
    const windows = yield* MaintenanceRepo

    /** What is set up now; inside a transaction, as that transaction sees it. */
    const setup = Effect.fn("ConfigurationExport.setup")(function*() {
      const keyRows = yield* keys.all()
      const byId = new Map(keyRows.map((row) => [`${row.kind} ${row.entityId}`, row.key]))
      const byKey = new Map(keyRows.map((row) => [`${row.kind} ${row.key}`, row.entityId]))
      const organization = yield* Effect.flatMap(
        organizations.find(),
        Option.match({
          onNone: () => Effect.die(new Error("The organization row is missing")),
          onSome: Effect.succeed
        })
      )
      const allWindows = yield* everything(windows.findPage)
      // A series to come is written as it was scheduled (its first window's times and its whole
      // rule), so its entry stays the same as its windows pass; its next window stands for it
      // otherwise (the one an update of its title, description or components changes).
      const firstOf = new Map(
        allWindows.filter((window) => window.seriesId !== null && window.occurrence === 0).map((w) => [w.seriesId!, w])
      )
      const series = new Set<string>()
      const maintenance = allWindows
        .filter((window) => window.status === "scheduled" || window.status === "in_progress")
        .sort((a, b) => DateTime.toEpochMillis(a.scheduledStart) - DateTime.toEpochMillis(b.scheduledStart))
        .filter((window) => {
          if (window.seriesId === null) return true
          if (series.has(window.seriesId)) return false
          series.add(window.seriesId)
          return true
        })
        .map((window) => {
          const first = window.seriesId === null ? undefined : firstOf.get(window.seriesId)
          return first === undefined ? window : Maintenance.make({
            ...window,
            scheduledStart: first.scheduledStart,
            scheduledEnd: first.scheduledEnd,
            occurrence: 0
          })
        })
      const found: Omit<Setup, "keyOf" | "idOf"> = {
        organization,
        groups: [...(yield* everything(groups.findPage))].sort(byOrder),
        components: [...(yield* everything(components.findPage))].sort(byOrder),
        templates: yield* everything(templates.findPage),
        monitors: yield* everything((page) => monitors.findPage(page, new Set())),
        pages: (yield* everything(pages.findPage)) as ReadonlyArray<StatusPage>,
        webhooks: yield* everything(webhooks.findPage),
        maintenance
      }
      const ids: Record<ConfigurationKind, Set<string>> = {
        group: new Set(found.groups.map((g) => g.id)),
        component: new Set(found.components.map((c) => c.id)),
        template: new Set(found.templates.map((t) => t.id)),
        monitor: new Set(found.monitors.map((m) => m.id)),
        page: new Set(found.pages.map((p) => p.id)),
        webhook: new Set(found.webhooks.map((w) => w.id)),
        maintenance: new Set(found.maintenance.map((w) => w.seriesId ?? w.id))
      }
      // A page is called by its slug.
      const slugs = new Map<string, string>(found.pages.map((page) => [page.id, page.slug]))
      const pageIds = new Map<string, string>(found.pages.map((page) => [page.slug, page.id]))
      return {
        ...found,
        keyOf: (kind, id) => kind === "page" ? slugs.get(id) ?? id : byId.get(`${kind} ${id}`) ?? id,
        idOf: (kind, key) => {
          if (kind === "page") return pageIds.get(key)
          const mapped = byKey.get(`${kind} ${key}`)
          if (mapped !== undefined) return ids[kind].has(mapped) ? mapped : undefined
          // A key that is an entity's id (what export writes for one made elsewhere), unless another is called by it.
          return ids[kind].has(key) && !byId.has(`${kind} ${key}`) ? key : undefined
        }
      } satisfies Setup
    })

    return {
      setup,
      document: Effect.fn("ConfigurationExport.document")(function*() {
        return documentOf(yield* setup())
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      ConfigurationKeysRepo.layer,
      OrganizationRepo.layer,
      ComponentGroupsRepo.layer,
      ComponentsRepo.layer,
      IncidentTemplatesRepo.layer,
      MonitorsRepo.layer,
      StatusPagesRepo.layer,
      WebhooksRepo.layer,
      MaintenanceRepo.layer
    ])
  )
}

/** Keeps `maskedHeaderValue` in view: a document's header value equal to it keeps the stored one. */
export const keepsStored = (value: string | undefined) => value === maskedHeaderValue
