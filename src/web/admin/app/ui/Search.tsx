/**
 * The header's search over components, monitors and incidents: what the operator types is
 * matched (case-insensitively, every word) against names, URLs and titles, and the first matches
 * are listed as links to the screen that deals with each. The lists are read when the box is
 * first focused, and again at the next focus or keystroke after the live stream says they
 * changed; otherwise typing asks the server nothing. Enter opens the first match; Escape clears the box. `/` focuses it (ui/Shortcuts.tsx).
 */
import { Effect } from "effect"
import { useRef, useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import { incidentStatusLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import { call } from "../core/api.js"
import { useLiveRefresh } from "../core/live.js"
import { href } from "../core/router.js"

export const searchInputId = "dashboard-search"

const maxShown = 8

interface Entry {
  readonly key: string
  readonly kind: "Component" | "Monitor" | "Incident"
  readonly label: string
  readonly detail: string
  /** The screen's address after `#/` (`monitors?id=…`). */
  readonly path: string
  /** What the words are matched against, lower case. */
  readonly text: string
}

const entry = (key: string, kind: Entry["kind"], label: string, detail: string, path: string): Entry => ({
  key,
  kind,
  label,
  detail,
  path,
  text: `${label} ${detail}`.toLowerCase()
})

const liveKinds = ["components", "incidents", "monitors"] as const

/** The entries whose text holds every word of `query`, at most `maxShown`. */
const matching = (entries: ReadonlyArray<Entry>, query: string) => {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word.length > 0)
  if (words.length === 0) return []
  return entries.filter((candidate) => words.every((word) => candidate.text.includes(word))).slice(0, maxShown)
}

export const Search = () => {
  const can = useCan()
  const [entries, setEntries] = useState<ReadonlyArray<Entry> | null>(null)
  const [query, setQuery] = useState("")
  // Nothing is read until the operator first comes to the box.
  const wanted = useRef(false)

  const load = async () => {
    if (!wanted.current) return
    const outcome = await call((api) =>
      Effect.all({
        components: can("components.list") ? everyItem(api.components.list) : Effect.succeed([]),
        monitors: can("monitors.list") ? everyItem(api.monitors.list) : Effect.succeed([]),
        incidents: can("incidents.list") ? everyItem(api.incidents.list) : Effect.succeed([])
      }, { concurrency: "unbounded" })
    )
    if (!outcome.ok) return
    const { components, incidents, monitors } = outcome.value
    const componentName = new Map(components.map((component) => [component.id, component.name]))
    setEntries([
      // Open incidents first: they are what an operator looks for in an outage.
      ...incidents.toSorted((a, b) => Number(a.status === "resolved") - Number(b.status === "resolved")).map((
        incident
      ) => entry(`i-${incident.id}`, "Incident", incident.title, incidentStatusLabel[incident.status], "incidents")),
      ...components.map((component) =>
        entry(`c-${component.id}`, "Component", component.name, component.description ?? "", "components")
      ),
      ...monitors.map((monitor) =>
        entry(
          `m-${monitor.id}`,
          "Monitor",
          componentName.get(monitor.componentId) ?? monitor.url,
          monitor.url,
          `monitors?id=${encodeURIComponent(monitor.id)}`
        )
      )
    ])
  }

  // A change makes the lists stale; they are read again when the operator next searches, not at
  // every change (each read takes every page of three lists).
  const stale = useRef(false)
  useLiveRefresh(liveKinds, () => {
    stale.current = true
  })
  const readIfStale = () => {
    if (!stale.current) return
    stale.current = false
    void load()
  }

  const found = entries === null ? [] : matching(entries, query)
  const searching = query.trim().length > 0

  return (
    <div role="search" class="search">
      <label for={searchInputId} class="visually-hidden">Search components, monitors and incidents</label>
      <input
        id={searchInputId}
        type="search"
        placeholder="Search  /"
        autocomplete="off"
        aria-describedby="dashboard-search-results"
        value={query}
        onFocus={() => {
          if (wanted.current) return readIfStale()
          wanted.current = true
          void load()
        }}
        onInput={(event) => {
          setQuery(event.currentTarget.value)
          readIfStale()
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") setQuery("")
          if (event.key === "Enter" && found[0] !== undefined) {
            location.hash = href(found[0].path)
            setQuery("")
            // On to the screen, as following a link does.
            document.getElementById("main")?.focus()
          }
        }}
      />
      <div id="dashboard-search-results" class="search-results" aria-live="polite">
        {searching && (entries === null
          ? <p class="muted">Searching…</p>
          : found.length === 0
          ? <p class="muted">Nothing matches “{query.trim()}”.</p>
          : (
            <ul aria-label="Search results">
              {found.map((match) => (
                <li key={match.key}>
                  <a href={href(match.path)} onClick={() => setQuery("")}>
                    <span class="search-kind">{match.kind}</span> {match.label}
                    {match.detail.length > 0 && <span class="muted small">{" "}· {match.detail}</span>}
                  </a>
                </li>
              ))}
            </ul>
          ))}
      </div>
    </div>
  )
}
