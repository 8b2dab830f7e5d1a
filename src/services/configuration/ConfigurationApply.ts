/**
 * Makes the service match a configuration document (docs/configuration-as-code.md), in one
 * transaction: every entry is created, updated or left as it is, and with `prune` what the
 * document does not name is deleted; a refusal of any entry (named in the error) changes
 * nothing. A dry run does the same and rolls it back, so its plan is exactly what applying
 * would do, refusals included.
 *
 * Entries go through the services the admin API uses, with their rules, audit entries and
 * events. A field an entry leaves out is left as it is on an update, and takes the creation
 * default on a creation; an update sends only the fields whose value differs, so applying the
 * same document twice changes nothing the second time. A secret given as `"********"` (a
 * `${VARIABLE}` the command line found unset) keeps the stored one.
 */
import { Context, Data, Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"

import type { ComponentId } from "../../domain/Component.js"
import type { ComponentGroupId } from "../../domain/ComponentGroup.js"
import {
  type ConfigurationDocument,
  type ConfigurationKind,
  configurationKinds,
  keepsStoredSecret,
  type PlanStep
} from "../../domain/Configuration.js"
import { BadRequest, Conflict, NotFound, ServiceUnavailable } from "../../domain/Errors.js"
import type { IncidentTemplateId } from "../../domain/Incident.js"
import type { MaintenanceId } from "../../domain/Maintenance.js"
import { maskedHeaderValue, type MonitorId } from "../../domain/Monitor.js"
import type { StatusPageId } from "../../domain/StatusPage.js"
import type { WebhookId } from "../../domain/Webhook.js"
import { ConfigurationKeysRepo } from "../../persistence/ConfigurationKeysRepo.js"
import { ComponentGroups } from "../catalog/ComponentGroups.js"
import { Components } from "../catalog/Components.js"
import { IncidentTemplates } from "../catalog/IncidentTemplates.js"
import { MaintenanceWindows } from "../catalog/MaintenanceWindows.js"
import { OrganizationProfile } from "../catalog/OrganizationProfile.js"
import { StatusPages } from "../catalog/StatusPages.js"
import { Monitors } from "../monitoring/Monitors.js"
import { Webhooks } from "../notifications/webhooks/Webhooks.js"
import { StateChanges } from "../StateChanges.js"
import {
  componentEntry,
  ConfigurationExport,
  groupEntry,
  maintenanceEntry,
  monitorEntry,
  organizationEntry,
  pageEntry,
  type Setup,
  templateEntry,
  webhookEntry
} from "./ConfigurationExport.js"

export type ApplyError = BadRequest | Conflict | NotFound | ServiceUnavailable

export interface ApplyOptions {
  /** Delete what the document does not name. */
  readonly prune: boolean
  /** Plan only: everything is rolled back. */
  readonly dryRun: boolean
}

/** The plan, and (on a creation) what is shown once: a generic webhook's secret, a push monitor's token. */
export interface Applied {
  readonly applied: boolean
  readonly plan: Array<PlanStep>
}

/** Ends a dry run's transaction with its plan (a failure rolls the transaction back). */
class DryRun extends Data.TaggedError("DryRun")<{ readonly plan: Array<PlanStep> }> {}

/** A refusal of one entry, named: `monitors[checkout-api]: …`. */
const naming = (where: string) => (error: ApplyError): ApplyError => {
  switch (error._tag) {
    case "BadRequest":
      return new BadRequest({
        message: `${where}: ${error.message}`,
        ...(error.issues === undefined ? {} : { issues: error.issues.map((i) => ({ ...i, path: [where, ...i.path] })) })
      })
    case "Conflict":
      return new Conflict({ message: `${where}: ${error.message}` })
    case "NotFound":
      return new NotFound({ message: `${where}: ${error.message}` })
    case "ServiceUnavailable":
      return error
  }
}

/** The fields of two entries that differ (compared as JSON, in the entry's own terms). */
const differing = (before: object, after: object): Array<string> => {
  const b = before as Record<string, unknown>
  const a = after as Record<string, unknown>
  return [...new Set([...Object.keys(b), ...Object.keys(a)])]
    .filter((field) => JSON.stringify(b[field]) !== JSON.stringify(a[field]))
    .sort()
}

/** An entry's field → the field of the API's body and of the stored entity. */
const bodyField: Record<string, string> = {
  group: "groupId",
  component: "componentId",
  components: "componentIds",
  incidentTemplate: "incidentTemplateId"
}

/** `fields` of `body`, named as the entry names them (a partial update of what differs). */
const only = (body: Record<string, unknown>, fields: ReadonlyArray<string>) =>
  Object.fromEntries(
    fields.map((field) => bodyField[field] ?? field).filter((field) => field in body).map((field) => [
      field,
      body[field]
    ])
  )

/** Leaves out the fields whose value is undefined. */
const defined = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

export class ConfigurationApply extends Context.Service<ConfigurationApply>()("ConfigurationApply", {
  make: Effect.gen(function*() {
    const exporter = yield* ConfigurationExport
    const keys = yield* ConfigurationKeysRepo
    const changes = yield* StateChanges
    const organization = yield* OrganizationProfile
    const groups = yield* ComponentGroups
    const components = yield* Components
    const templates = yield* IncidentTemplates
    const monitors = yield* Monitors
    const pages = yield* StatusPages
    const webhooks = yield* Webhooks
    const windows = yield* MaintenanceWindows

    /**
     * Applies `document` inside the caller's transaction: what an import runs before its own
     * records, and `apply` alone. Returns the plan and the ids by key, for what comes after.
     */
    const within = Effect.fn("ConfigurationApply.within")(function*(
      document: ConfigurationDocument,
      prune: boolean
    ) {
      // A key is one entry's: given twice, the second would update what the first made.
      for (
        const [list, keysOf] of [
          ["groups", document.groups?.map((e) => e.key)],
          ["components", document.components?.map((e) => e.key)],
          ["templates", document.templates?.map((e) => e.key)],
          ["monitors", document.monitors?.map((e) => e.key)],
          ["pages", document.pages?.map((e) => e.slug)],
          ["webhooks", document.webhooks?.map((e) => e.key)],
          ["maintenance", document.maintenance?.map((e) => e.key)]
        ] as const
      ) {
        const seen = new Set<string>()
        const twice = (keysOf ?? []).find((key) => seen.size === seen.add(key).size)
        if (twice !== undefined) {
          return yield* BadRequest.fromIssues([{
            path: [list],
            message: `names "${twice}" twice: a key is one entry's`
          }])
        }
      }
      yield* keys.lockForApply()
      const plan: Array<PlanStep> = []
      const setup = yield* exporter.setup()
      const made = new Map<string, string>()
      /** Series cancelled and made again (their rule or times changed): not for `prune` to cancel again. */
      const replaced = new Set<string>()
      const idOf = (kind: ConfigurationKind, key: string) => made.get(`${kind} ${key}`) ?? setup.idOf(kind, key)
      // The setup as this run leaves it: what it made is called by the key it was made under.
      const after: Setup = {
        ...setup,
        keyOf: (kind, id) => {
          for (const [name, made_] of made) {
            if (made_ === id && name.startsWith(`${kind} `)) return name.slice(kind.length + 1)
          }
          return setup.keyOf(kind, id)
        },
        idOf
      }
      const need = (kind: ConfigurationKind, key: string) =>
        Effect.suspend(() => {
          const id = idOf(kind, key)
          return id === undefined
            ? Effect.fail(
              BadRequest.fromIssues([{
                path: [kind],
                message: `names ${kind} "${key}", which the document does not define`
              }])
            )
            : Effect.succeed(id)
        })
      const step = (kind: PlanStep["kind"], key: string, action: PlanStep["action"], fields?: ReadonlyArray<string>) =>
        plan.push({ kind, key, action, ...(fields === undefined || fields.length === 0 ? {} : { fields }) })
      // A page is called by its slug, which it keeps itself.
      const remember = (kind: ConfigurationKind, key: string, id: string) =>
        Effect.andThen(
          Effect.sync(() => made.set(`${kind} ${key}`, id)),
          kind === "page" ? Effect.void : keys.set(kind, key, id)
        )

      /**
       * One entry: creates it when its key names nothing, else updates what differs. `body` is
       * the API's body for the entry (refs resolved); `current` and `entry` read an entity
       * back as an entry, to compare.
       */
      const upsert = <E extends { readonly id: string }>(options: {
        readonly kind: ConfigurationKind
        readonly key: string
        readonly existing: ReadonlyArray<E>
        readonly existingId?: (entity: E) => string
        readonly body: Record<string, unknown> | ((current: E | undefined) => Record<string, unknown>)
        readonly entry: (entity: E) => object
        readonly create: (
          body: Record<string, unknown>
        ) => Effect.Effect<
          { readonly id: string; readonly secret?: string | undefined },
          ApplyError,
          SqlClient.SqlClient
        >
        readonly update: (
          id: string,
          body: Record<string, unknown>,
          current: E
        ) => Effect.Effect<unknown, ApplyError, SqlClient.SqlClient>
      }) =>
        Effect.gen(function*() {
          const id = idOf(options.kind, options.key)
          const current = id === undefined
            ? undefined
            : options.existing.find((entity) => (options.existingId?.(entity) ?? entity.id) === id)
          const body = defined(typeof options.body === "function" ? options.body(current) : options.body)
          if (current === undefined) {
            const created = yield* options.create(body)
            yield* remember(options.kind, options.key, created.id)
            plan.push({
              kind: options.kind,
              key: options.key,
              action: "create",
              ...(created.secret === undefined ? {} : { secret: created.secret })
            })
            return created.id
          }
          const fields = differing(options.entry(current), options.entry({ ...current, ...body }))
          if (fields.length === 0) step(options.kind, options.key, "unchanged")
          else {
            yield* options.update(id!, only(body, fields), current)
            step(options.kind, options.key, "update", fields)
          }
          return id!
        })

      // The organization: only what the document says.
      if (document.organization !== undefined) {
        const current = setup.organization
        const fields = differing(
          organizationEntry(current),
          organizationEntry({ ...current, ...defined({ ...document.organization }) } as typeof current)
        )
        if (fields.length > 0) {
          yield* organization.update(current.id, only(defined({ ...document.organization }), fields))
          step("organization", current.name, "update", fields)
        } else step("organization", current.name, "unchanged")
      }

      for (const entry of document.groups ?? []) {
        const { key, ...body } = entry
        yield* upsert({
          kind: "group",
          key,
          existing: setup.groups,
          body,
          entry: (group) => groupEntry(after, group),
          create: (input) => groups.create(input as never),
          update: (id, update) => groups.update(id as ComponentGroupId, update)
        }).pipe(Effect.mapError(naming(`groups[${key}]`)))
      }

      for (const entry of document.components ?? []) {
        const { group, key, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            groupId: group === undefined ? undefined : group === null ? null : yield* need("group", group)
          }
          yield* upsert({
            kind: "component",
            key,
            existing: setup.components,
            body,
            entry: (component) => componentEntry(after, component),
            create: (input) => components.create(input as never),
            update: (id, update) => components.update(id as ComponentId, update)
          })
        }).pipe(Effect.mapError(naming(`components[${key}]`)))
      }

      for (const entry of document.templates ?? []) {
        const { components: named, key, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            componentIds: named === undefined ? undefined : yield* Effect.forEach(named, (k) => need("component", k))
          }
          yield* upsert({
            kind: "template",
            key,
            existing: setup.templates,
            body,
            entry: (template) => templateEntry(after, template),
            create: (input) => templates.create(input as never),
            update: (id, update) => templates.update(id as IncidentTemplateId, update)
          })
        }).pipe(Effect.mapError(naming(`templates[${key}]`)))
      }

      for (const entry of document.monitors ?? []) {
        const { component, incidentTemplate, key, paused, pushToken, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            componentId: yield* need("component", component),
            incidentTemplateId: incidentTemplate === undefined
              ? undefined
              : incidentTemplate === null
              ? null
              : yield* need("template", incidentTemplate)
          }
          const id = yield* upsert({
            kind: "monitor",
            key,
            existing: setup.monitors,
            // The comparison sees the stored secrets; `"********"` keeps them (the service's rule).
            body: (current) => ({
              ...body,
              password: keepsStoredSecret(body.password ?? undefined) ? undefined : body.password,
              headers: body.headers === undefined || body.headers === null ? body.headers : Object.fromEntries(
                Object.entries(body.headers).map(([name, value]) => [
                  name,
                  keepsStoredSecret(value) ? current?.headers?.[name] ?? maskedHeaderValue : value
                ])
              )
            }),
            entry: (monitor) => {
              const { paused: _paused, ...settings } = monitorEntry(after, monitor, "stored")
              return settings
            },
            create: (input) =>
              Effect.gen(function*() {
                if (keepsStoredSecret(body.password ?? undefined)) {
                  return yield* BadRequest.fromIssues([{
                    path: ["password"],
                    message: "is a variable that is not set, and there is no stored password to keep"
                  }])
                }
                // A token the document gives keeps a push URL (a move); an unset one makes a new URL.
                const token = pushToken !== undefined && !keepsStoredSecret(pushToken) ? { pushToken } : {}
                const created = yield* monitors.create({ ...input, ...token } as never)
                return { id: created.id, secret: token.pushToken === undefined ? created.pushToken : undefined }
              }),
            update: (id, update) => monitors.update(id as MonitorId, update)
          })
          const current = setup.monitors.find((monitor) => monitor.id === id)
          const wantPaused = paused ?? current?.paused ?? false
          if ((current?.paused ?? false) !== wantPaused) {
            yield* monitors.setPaused(id as MonitorId, wantPaused)
            const last = plan[plan.length - 1]!
            if (last.action === "unchanged") plan[plan.length - 1] = { ...last, action: "update", fields: ["paused"] }
            else if (last.action === "update") {
              plan[plan.length - 1] = { ...last, fields: [...last.fields ?? [], "paused"].sort() }
            }
          }
        }).pipe(Effect.mapError(naming(`monitors[${key}]`)))
      }

      for (const entry of document.pages ?? []) {
        const { items, password, slug, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            slug,
            items: items === undefined || items === null
              ? items
              : yield* Effect.forEach(
                items,
                (item) => Effect.map(need(item.type, item.key), (id) => ({ type: item.type, id }))
              )
          }
          const secret = password === undefined || keepsStoredSecret(password) ? {} : { password }
          yield* upsert({
            kind: "page",
            key: slug,
            existing: setup.pages,
            body,
            entry: (page) => pageEntry(after, page, "stored"),
            create: (input) =>
              password !== undefined && keepsStoredSecret(password)
                ? Effect.fail(BadRequest.fromIssues([{
                  path: ["password"],
                  message: "is a variable that is not set, and there is no stored password to keep"
                }]))
                : pages.create({ ...input, ...secret } as never),
            update: (id, update) => pages.update(id as StatusPageId, update)
          })
          // A password the document gives is set when it is not the page's already.
          const id = idOf("page", slug)!
          if (
            secret.password !== undefined &&
            !plan.some((s) => s.kind === "page" && s.key === slug && s.action === "create")
          ) {
            if (!(yield* pages.verifyPassword(id, secret.password))) {
              yield* pages.update(id as StatusPageId, { password: secret.password })
              const last = plan[plan.length - 1]!
              plan[plan.length - 1] = { ...last, action: "update", fields: [...last.fields ?? [], "password"].sort() }
            }
          }
        }).pipe(Effect.mapError(naming(`pages[${slug}]`)))
      }

      for (const entry of document.webhooks ?? []) {
        const { components: named, key, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            integrationKey: keepsStoredSecret(fields.integrationKey) ? undefined : fields.integrationKey,
            componentIds: named === undefined
              ? undefined
              : named === null
              ? null
              : yield* Effect.forEach(named, (k) => need("component", k))
          }
          yield* upsert({
            kind: "webhook",
            key,
            existing: setup.webhooks,
            body,
            entry: (webhook) => webhookEntry(after, webhook, "stored"),
            create: (input) =>
              Effect.gen(function*() {
                if (fields.integrationKey !== undefined && keepsStoredSecret(fields.integrationKey)) {
                  return yield* BadRequest.fromIssues([{
                    path: ["integrationKey"],
                    message: "is a variable that is not set, and there is no stored key to keep"
                  }])
                }
                const created = yield* webhooks.create(input as never)
                return { id: created.id, secret: created.secret ?? undefined }
              }),
            update: (id, update) => webhooks.update(id as WebhookId, update)
          })
        }).pipe(Effect.mapError(naming(`webhooks[${key}]`)))
      }

      for (const entry of document.maintenance ?? []) {
        const { components: named, key, ...fields } = entry
        yield* Effect.gen(function*() {
          const body = {
            ...fields,
            recurrence: fields.recurrence ?? null,
            componentIds: named === undefined ? undefined : yield* Effect.forEach(named, (k) => need("component", k))
          }
          yield* upsert({
            kind: "maintenance",
            key,
            existing: setup.maintenance,
            existingId: (window) => window.seriesId ?? window.id,
            body,
            entry: (window) => maintenanceEntry(after, window),
            create: (input) => windows.create(input as never),
            update: (_id, update, current) =>
              Effect.gen(function*() {
                // A series' rule or times never change in place: its rest is cancelled and a new series made.
                if (
                  current.seriesId !== null && ["recurrence", "scheduledStart", "scheduledEnd"].some((f) => f in update)
                ) {
                  yield* windows.cancel(current.id as MaintenanceId, { series: true })
                  replaced.add(current.seriesId)
                  const created = yield* windows.create(defined(body) as never)
                  yield* remember("maintenance", key, created.seriesId ?? created.id)
                  return
                }
                const { recurrence: _recurrence, ...changed } = update
                yield* windows.update(current.id as MaintenanceId, changed as never)
              })
          })
        }).pipe(Effect.mapError(naming(`maintenance[${key}]`)))
      }

      if (prune) {
        const named = (kind: ConfigurationKind) =>
          new Set([...made].filter(([name]) => name.startsWith(`${kind} `)).map(([, id]) => id))
        const keep: Record<ConfigurationKind, Set<string>> = Object.fromEntries(
          configurationKinds.map((kind) => [kind, named(kind)])
        ) as never
        const entriesOf: Record<ConfigurationKind, ReadonlyArray<string>> = {
          group: (document.groups ?? []).map((e) => e.key),
          component: (document.components ?? []).map((e) => e.key),
          template: (document.templates ?? []).map((e) => e.key),
          monitor: (document.monitors ?? []).map((e) => e.key),
          page: (document.pages ?? []).map((e) => e.slug),
          webhook: (document.webhooks ?? []).map((e) => e.key),
          maintenance: (document.maintenance ?? []).map((e) => e.key)
        }
        for (const kind of configurationKinds) {
          for (const key of entriesOf[kind]) {
            const id = idOf(kind, key)
            if (id !== undefined) keep[kind].add(id)
          }
        }
        const prunable: Record<
          ConfigurationKind,
          ReadonlyArray<{ readonly id: string; readonly remove: Effect.Effect<unknown, ApplyError> }>
        > = {
          maintenance: setup.maintenance.map((w) => ({
            id: w.seriesId ?? w.id,
            remove: windows.cancel(w.id as MaintenanceId, { series: true })
          })),
          webhook: setup.webhooks.map((w) => ({ id: w.id, remove: webhooks.remove(w.id as WebhookId) })),
          page: setup.pages.map((p) => ({ id: p.id, remove: pages.remove(p.id as StatusPageId) })),
          monitor: setup.monitors.map((m) => ({ id: m.id, remove: monitors.remove(m.id as MonitorId) })),
          template: setup.templates.map((t) => ({ id: t.id, remove: templates.remove(t.id as IncidentTemplateId) })),
          component: setup.components.map((c) => ({ id: c.id, remove: components.remove(c.id as ComponentId) })),
          group: setup.groups.map((g) => ({ id: g.id, remove: groups.remove(g.id as ComponentGroupId) }))
        }
        for (const kind of [...configurationKinds].reverse()) {
          for (const entity of prunable[kind]) {
            if (keep[kind].has(entity.id) || replaced.has(entity.id)) continue
            const key = setup.keyOf(kind, entity.id)
            yield* entity.remove.pipe(Effect.mapError(naming(`${kind} ${key}`)))
            yield* keys.remove(kind, entity.id)
            step(kind, key, "delete")
          }
        }
      }
      return { plan, idOf }
    })

    /** Runs `change` as one committed change, or (dry run) rolls it back and answers its plan. */
    const transact = <E, R>(
      change: Effect.Effect<Array<PlanStep>, E, R>,
      dryRun: boolean
    ): Effect.Effect<Applied, E | ServiceUnavailable, R> =>
      changes.commit(
        Effect.flatMap(change, (plan) => dryRun ? Effect.fail(new DryRun({ plan })) : Effect.succeed(plan))
      ).pipe(
        Effect.map((plan): Applied => ({ applied: true, plan })),
        Effect.catchIf(
          (error): error is DryRun => error instanceof DryRun,
          (dry) => Effect.succeed<Applied>({ applied: false, plan: dry.plan })
        )
      ) as Effect.Effect<Applied, E | ServiceUnavailable, R>

    return {
      within,
      transact,
      apply: Effect.fn("ConfigurationApply.apply")((document: ConfigurationDocument, options: ApplyOptions) =>
        transact(Effect.map(within(document, options.prune), ({ plan }) => plan), options.dryRun)
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      ConfigurationExport.layer,
      ConfigurationKeysRepo.layer,
      StateChanges.layer,
      OrganizationProfile.layer,
      ComponentGroups.layer,
      Components.layer,
      IncidentTemplates.layer,
      Monitors.layer,
      StatusPages.layer,
      Webhooks.layer,
      MaintenanceWindows.layer
    ])
  )
}
