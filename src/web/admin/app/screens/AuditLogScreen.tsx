/**
 * The audit log: who changed what and when, newest first, a page at a time ("Load more" follows
 * the list's cursor), filtered by actor type, operation, target type and a date range. Each
 * entry shows its time in the browser's time zone, the actor, the client address, the
 * operation, the target and each field's change.
 */
import { DateTime } from "effect"
import { useEffect, useState } from "preact/hooks"

import { nextCursor } from "../../../../client/Pages.js"
import type { ActorType, AuditEntry } from "../../../../domain/Audit.js"
import { operationIds } from "../core/access.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import type { Screen } from "../core/Screen.js"
import { FailureMessage, StatusMessage, WhenText } from "../ui/feedback.js"
import { SelectField, TextField } from "../ui/fields.js"

const pageSize = 50

const actorTypeLabel: Record<ActorType, string> = { user: "user", apiKey: "API key", system: "system" }

const actorTypeOptions: ReadonlyArray<{ readonly value: "" | ActorType; readonly label: string }> = [
  { value: "", label: "Any" },
  { value: "user", label: "User" },
  { value: "apiKey", label: "API key" },
  { value: "system", label: "System (automations)" }
]

interface Filters {
  readonly actorType: "" | ActorType
  readonly operation: string
  readonly targetType: string
  /** `datetime-local` values: the browser's local time. */
  readonly since: string
  readonly until: string
}

const noFilters: Filters = { actorType: "", operation: "", targetType: "", since: "", until: "" }

/** A `datetime-local` value as the UTC instant the API wants; empty or unreadable is no bound. */
const instant = (local: string) => {
  if (local === "") return undefined
  const date = new Date(local)
  return Number.isNaN(date.getTime()) ? undefined : DateTime.makeUnsafe(date)
}

const queryOf = (filters: Filters, cursor: string | undefined) => {
  const since = instant(filters.since)
  const until = instant(filters.until)
  return {
    limit: pageSize,
    ...(cursor === undefined ? {} : { cursor }),
    ...(filters.actorType === "" ? {} : { actorType: filters.actorType }),
    ...(filters.operation.trim() === "" ? {} : { operation: filters.operation.trim() }),
    ...(filters.targetType.trim() === "" ? {} : { targetType: filters.targetType.trim() }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until })
  }
}

const longest = 300

/** A field's value in words: text as it is, nothing as "none", anything else as JSON, cut when long. */
const shownValue = (value: unknown): string => {
  if (value === null || value === undefined) return "none"
  const text = typeof value === "string" ? (value === "" ? "\"\"" : value) : JSON.stringify(value)
  return text.length > longest ? `${text.slice(0, longest)}…` : text
}

const Changes = ({ changes }: { readonly changes: AuditEntry["changes"] }) => {
  const fields = Object.entries(changes)
  if (fields.length === 0) return <span class="muted">none recorded</span>
  return (
    <ul class="changes">
      {fields.map(([field, change]) => (
        <li key={field}>
          <code>{field}</code>: {shownValue(change.before)} → {shownValue(change.after)}
        </li>
      ))}
    </ul>
  )
}

const Entry = ({ entry }: { readonly entry: AuditEntry }) => (
  <li class="audit-entry">
    <dl>
      <dt>When</dt>
      <dd>
        <WhenText at={entry.at} />
      </dd>
      <dt>Who</dt>
      <dd>
        {entry.actor.name} <span class="muted">({actorTypeLabel[entry.actor.type]})</span>
      </dd>
      <dt>From</dt>
      <dd>{entry.clientAddress ?? <span class="muted">no address</span>}</dd>
      <dt>Operation</dt>
      <dd>
        <code>{entry.operation}</code>
      </dd>
      <dt>Target</dt>
      <dd>
        {entry.target.type} {entry.target.name ?? entry.target.id ?? ""}
      </dd>
      <dt>Changes</dt>
      <dd>
        <Changes changes={entry.changes} />
      </dd>
    </dl>
  </li>
)

type Listed =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly failure: Failure }
  | { readonly state: "ready"; readonly entries: ReadonlyArray<AuditEntry>; readonly next: string | undefined }

const AuditLogView = () => {
  const [draft, setDraft] = useState<Filters>(noFilters)
  const [listed, setListed] = useState<Listed>({ state: "loading" })
  const [loadingMore, setLoadingMore] = useState(false)
  const [moreFailure, setMoreFailure] = useState<Failure | null>(null)
  const [message, setMessage] = useState("")
  const set = <K extends keyof Filters,>(key: K) => (value: Filters[K]) => setDraft({ ...draft, [key]: value })

  const firstPage = async (filters: Filters) => {
    setListed({ state: "loading" })
    setMoreFailure(null)
    const outcome = await call((api) =>
      api.auditLog.list({ query: queryOf(filters, undefined), responseMode: "decoded-and-response" })
    )
    if (!outcome.ok) return setListed({ state: "failed", failure: outcome.failure })
    const [entries, response] = outcome.value
    setListed({ state: "ready", entries, next: nextCursor(response.headers["link"]) })
    setMessage("")
  }

  // The filters the list was loaded with: "Load more" continues that list, not the form's edits.
  const [applied, setApplied] = useState<Filters>(noFilters)
  useEffect(() => {
    void firstPage(noFilters)
  }, [])

  const apply = (filters: Filters) => {
    setApplied(filters)
    void firstPage(filters)
  }

  const loadMore = async () => {
    if (listed.state !== "ready" || listed.next === undefined) return
    setLoadingMore(true)
    const cursor = listed.next
    const outcome = await call((api) =>
      api.auditLog.list({ query: queryOf(applied, cursor), responseMode: "decoded-and-response" })
    )
    setLoadingMore(false)
    setMoreFailure(outcome.ok ? null : outcome.failure)
    if (!outcome.ok) return
    const [entries, response] = outcome.value
    setListed({ state: "ready", entries: [...listed.entries, ...entries], next: nextCursor(response.headers["link"]) })
    setMessage(`${entries.length} more ${entries.length === 1 ? "entry" : "entries"} loaded.`)
  }

  const fieldError = (name: string) => listed.state === "failed" ? listed.failure.fields[name] : undefined
  const targetTypes = listed.state === "ready" ? [...new Set(listed.entries.map((entry) => entry.target.type))] : []

  return (
    <>
      <h1>Audit log</h1>
      <StatusMessage text={message} />
      <section aria-labelledby="audit-filters-title">
        <h2 id="audit-filters-title">Filters</h2>
        <form
          class="filters"
          aria-labelledby="audit-filters-title"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            apply(draft)
          }}
        >
          <SelectField
            id="audit-actor-type"
            label="Actor type"
            value={draft.actorType}
            options={actorTypeOptions}
            onChange={set("actorType")}
            error={fieldError("actorType")}
          />
          <TextField
            id="audit-operation"
            label="Operation"
            list="audit-operations"
            value={draft.operation}
            onInput={set("operation")}
            hint="Such as incidents.create."
            error={fieldError("operation")}
          />
          <datalist id="audit-operations">{operationIds.map((id) => <option key={id} value={id} />)}</datalist>
          <TextField
            id="audit-target-type"
            label="Target type"
            list="audit-target-types"
            value={draft.targetType}
            onInput={set("targetType")}
            hint="Such as incident or component."
            error={fieldError("targetType")}
          />
          <datalist id="audit-target-types">{targetTypes.map((type) => <option key={type} value={type} />)}</datalist>
          <TextField
            id="audit-since"
            label="From"
            type="datetime-local"
            value={draft.since}
            onInput={set("since")}
            hint="Your local time; included."
            error={fieldError("since")}
          />
          <TextField
            id="audit-until"
            label="Before"
            type="datetime-local"
            value={draft.until}
            onInput={set("until")}
            hint="Your local time; not included."
            error={fieldError("until")}
          />
          <div class="actions">
            <button type="submit" class="primary">Apply filters</button>
            <button
              type="button"
              onClick={() => {
                setDraft(noFilters)
                apply(noFilters)
              }}
            >
              Clear filters
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="audit-entries-title">
        <h2 id="audit-entries-title">Entries, newest first</h2>
        {listed.state === "loading" && <p class="loading" aria-busy="true">Loading…</p>}
        {listed.state === "failed" && <FailureMessage failure={listed.failure} />}
        {listed.state === "ready" && (
          listed.entries.length === 0
            ? <p>No entries{Object.values(applied).every((value) => value === "") ? "" : " match these filters"}.</p>
            : (
              <>
                <ol class="audit-entries" aria-label="Audit log entries">
                  {listed.entries.map((entry) => <Entry key={entry.id} entry={entry} />)}
                </ol>
                <FailureMessage failure={moreFailure} />
                {listed.next !== undefined && (
                  <button type="button" onClick={loadMore} disabled={loadingMore}>
                    {loadingMore ? "Loading…" : "Load more"}
                  </button>
                )}
              </>
            )
        )}
      </section>
    </>
  )
}

export const AuditLogScreen: Screen = {
  path: "audit-log",
  group: "team",
  title: "Audit log",
  needs: "auditLog.list",
  View: AuditLogView
}
