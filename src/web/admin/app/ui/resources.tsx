/**
 * The form-and-table kit every resource screen is made of: the page with its status line, the
 * list as a table or as cards, a row's actions and its forms opened in place, and the form that
 * creates or edits one. A screen supplies only its fields, its columns and its words.
 */
import type { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import { type ComponentChildren, createContext, Fragment, type VNode } from "preact"
import { useContext, useEffect, useRef, useState } from "preact/hooks"

import { type ApiClient, call, type Outcome } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { guardLeave } from "../core/router.js"
import { FailureMessage, Loading, StatusMessage, Table } from "./feedback.js"
import { type Loaded, useLoad } from "./requests.js"

/** A screen's heading and its status line (what the last change did), then its parts. */
export const ResourcePage = (
  props: { readonly title: string; readonly message: string; readonly children: ComponentChildren }
) => (
  <>
    <h1>{props.title}</h1>
    <StatusMessage text={props.message} />
    {props.children}
  </>
)

/** The list as a table, one row per item; says so while loading, on failure and when empty. */
export const ResourceTable = <A,>(props: {
  readonly loaded: Loaded<ReadonlyArray<A>>
  readonly caption: string
  readonly columns: ReadonlyArray<string>
  readonly empty: string
  readonly children: (item: A) => VNode
}) => (
  <Loading loaded={props.loaded}>
    {(items) =>
      items.length === 0 ? <p>{props.empty}</p> : (
        <Table caption={props.caption}>
          <thead>
            <tr>
              {props.columns.map((column) => <th key={column} scope="col">{column}</th>)}
            </tr>
          </thead>
          <tbody>{items.map(props.children)}</tbody>
        </Table>
      )}
  </Loading>
)

/**
 * The list as cards, one per item (`ResourceCard`): for items with more to say than a row holds
 * (a message, a timeline, forms opened in place). On a phone a card keeps its title whole where a
 * table's first column would squeeze it to a word.
 */
export const ResourceCards = <A,>(props: {
  readonly loaded: Loaded<ReadonlyArray<A>>
  /** The list's name for screen readers ("Incidents"). */
  readonly label: string
  readonly empty: string
  readonly children: (item: A) => VNode
}) => (
  <Loading loaded={props.loaded}>
    {(items) =>
      items.length === 0 ? <p>{props.empty}</p> : (
        <ul class="cards" aria-label={props.label}>
          {items.map(props.children)}
        </ul>
      )}
  </Loading>
)

/**
 * One item of `ResourceCards`, in the order an operator reads it: the title (the card's name, a
 * heading to jump by), the status and other badges, the facts (`children`), the last action's
 * failure, the actions, then the parts opened in place (`opened`), under the button that opened them.
 */
export const ResourceCard = (props: {
  /** Unique within the page; the title's id is `${id}-title`. */
  readonly id: string
  readonly title: string
  readonly status: { readonly text: string; readonly tone?: "ok" | "bad" }
  /** Badges after the status (severity, visibility). */
  readonly badges?: ComponentChildren
  readonly children: ComponentChildren
  readonly failure: Failure | null
  readonly actions?: ComponentChildren
  readonly opened?: ComponentChildren
}) => (
  <li class="card">
    <article aria-labelledby={`${props.id}-title`}>
      <div class="card-head">
        <h2 class="card-title" id={`${props.id}-title`}>{props.title}</h2>
        <p class="card-badges">
          <span class={props.status.tone ? `badge ${props.status.tone}` : "badge"}>
            <span class="visually-hidden">Status:{" "}</span>
            {props.status.text}
          </span>
          {props.badges}
        </p>
      </div>
      <div class="card-facts">{props.children}</div>
      <FailureMessage failure={props.failure} />
      {props.actions && <div class="card-actions">{props.actions}</div>}
      {props.opened}
    </article>
  </li>
)

/** The section under the list that creates one; `id` is its form's, the heading is `${id}-title`. */
export const NewSection = (
  props: { readonly id: string; readonly title: string; readonly children: ComponentChildren }
) => (
  <section aria-labelledby={`${props.id}-title`}>
    <h2 id={`${props.id}-title`}>{props.title}</h2>
    {props.children}
  </section>
)

/** What a form that creates an item, or edits `initial`, is given. */
export interface ResourceFormProps<A,> {
  /** Unique within the page; the fields' ids start with it and its heading is `${id}-title`. */
  readonly id: string
  readonly initial?: A
  /** The ETag `initial` was read with: the update sends it as `If-Match` (FreshEditor). */
  readonly etag?: string | undefined
  readonly submitLabel: string
  readonly onSaved: (saved: A) => void
  /** Given when the form is open in place (editing): a Cancel button closes it. */
  readonly onCancel?: () => void
}

/** Text the operator had typed in a form that lost a race, kept to copy back (FreshEditor). */
interface KeptText {
  readonly label: string
  readonly value: string
}

/** What a form inside a `FreshEditor` knows of the item it edits. */
interface FreshItem {
  /** What the item is called: "Someone else changed Checkout since you opened it". */
  readonly name: string
  /** Set once their version was loaded over the operator's: the form says so. */
  readonly theirs: boolean
  readonly kept: ReadonlyArray<KeptText>
  /** Reads the item again and opens the form anew on it, keeping `typed` in sight. */
  readonly loadTheirs: (typed: ReadonlyArray<KeptText>) => Promise<void>
}

const FreshItemContext = createContext<FreshItem | null>(null)

/** Fields whose text is worth keeping: what was written, not chosen (menus, boxes) or secret. */
const keptTypes: ReadonlySet<string> = new Set(["text", "email", "url", "search"])

/** A field's label without its "(required)" mark. */
const labelOf = (field: HTMLInputElement | HTMLTextAreaElement) => {
  const label = field.labels?.[0]?.cloneNode(true)
  if (!(label instanceof HTMLElement)) return field.name || field.id
  label.querySelectorAll(".required, .visually-hidden").forEach((mark) => mark.remove())
  return label.textContent?.trim() ?? ""
}

/** The text typed into the `changed` fields (by id) of `form`, in the form's order. */
const typedText = (form: HTMLFormElement, changed: ReadonlySet<string>): Array<KeptText> =>
  [...form.elements].flatMap((field) =>
    changed.has(field.id) &&
      (field instanceof HTMLTextAreaElement || (field instanceof HTMLInputElement && keptTypes.has(field.type))) &&
      field.value.trim() !== ""
      ? [{ label: labelOf(field), value: field.value }]
      : []
  )

/**
 * A form: its failure first, its fields, then submit (and Cancel when it can be closed). A form
 * that stays put after saving (a profile) says so in its own status line, `message`.
 *
 * Every form guards what was typed: once a field has had input since the form opened or last
 * saved, leaving the screen or the page asks first (core/router.ts). Inside a `FreshEditor`, a
 * save refused because someone else changed the item (412) names the item and offers their
 * version; loading it keeps what the operator typed beside the form ("Your text").
 */
export const ResourceForm = (props: {
  readonly id: string
  readonly message?: string
  readonly failure: Failure | null
  readonly busy: boolean
  readonly submitLabel: string
  readonly onSubmit: () => Promise<void>
  readonly onCancel?: (() => void) | undefined
  readonly children: ComponentChildren
}) => {
  const form = useRef<HTMLFormElement>(null)
  /** The fields (by id: a re-render may replace an element) with input since the form opened or last saved. */
  const changed = useRef(new Set<string>())
  const fresh = useContext(FreshItemContext)
  const [loading, setLoading] = useState(false)
  const theirVersion = useRef<HTMLDivElement>(null)

  useEffect(() => guardLeave(() => changed.current.size > 0), [])

  // A submission that ends without a failure has saved what was typed.
  const wasBusy = useRef(false)
  useEffect(() => {
    if (wasBusy.current && !props.busy && props.failure === null) changed.current.clear()
    wasBusy.current = props.busy
  }, [props.busy, props.failure])

  // Opened anew on their version: focus goes to the words saying so (the button pressed is gone).
  useEffect(() => {
    if (fresh?.theirs) theirVersion.current?.focus()
  }, [])

  // The form is opened anew once their version is in, so `loading` needs no resetting.
  const loadTheirs = () => {
    if (!fresh || !form.current) return
    setLoading(true)
    void fresh.loadTheirs(typedText(form.current, changed.current))
  }

  const conflict = fresh !== null && props.failure?.kind === "preconditionFailed"
  return (
    <form
      ref={form}
      onInput={(event) => {
        const field = event.target
        if (field instanceof Element) changed.current.add(field.id || field.getAttribute("name") || field.tagName)
      }}
      onSubmit={(event) => {
        event.preventDefault()
        void props.onSubmit()
      }}
      noValidate
      aria-labelledby={`${props.id}-title`}
    >
      {props.message !== undefined && <StatusMessage text={props.message} />}
      {conflict && (
        <div class="conflict">
          <p class="form-error" role="alert">
            Someone else changed {fresh.name} since you opened it, so your change was not saved.
          </p>
          <button type="button" onClick={loadTheirs} disabled={loading}>Load their version</button>
        </div>
      )}
      {!conflict && <FailureMessage failure={props.failure} />}
      {fresh?.theirs && (
        <div class="their-version" ref={theirVersion} tabIndex={-1}>
          <p>
            <strong>This is their version of {fresh.name}.</strong> {fresh.kept.length > 0
              ? "What you typed is kept below: copy what you still need."
              : "Make your change again."}
          </p>
          {fresh.kept.length > 0 && (
            <div class="your-text" role="group" aria-labelledby={`${props.id}-your-text`}>
              <p class="your-text-title" id={`${props.id}-your-text`}>Your text</p>
              <dl>
                {fresh.kept.map((text) => (
                  <Fragment key={text.label}>
                    <dt>{text.label}</dt>
                    <dd>{text.value}</dd>
                  </Fragment>
                ))}
              </dl>
            </div>
          )}
        </div>
      )}
      {props.children}
      <div class="actions">
        <button type="submit" class="primary" disabled={props.busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  )
}

/** What an item is called when its editor does not say: its title, name, e-mail, slug or URL. */
const nameOf = (value: unknown): string => {
  if (typeof value === "object" && value !== null) {
    for (const key of ["title", "name", "email", "slug", "url"]) {
      const name: unknown = (value as Record<string, unknown>)[key]
      if (typeof name === "string" && name.trim() !== "") return name
    }
  }
  return "this item"
}

/**
 * An editor over the item read afresh with its ETag, so that saving sends `If-Match`: when
 * someone else changed the item since, the save is refused (412) and the form says so instead
 * of overwriting their change, offering to load their version (`ResourceForm`).
 */
export const FreshEditor = <A,>(props: {
  readonly read: (api: ApiClient) => Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], unknown>
  /** What the item is called in the form's words; its title or name when not given. */
  readonly name?: (value: A) => string
  readonly children: (value: A, etag: string | undefined) => ComponentChildren
}) => {
  const [loaded, reload] = useLoad(props.read)
  // Each load of their version opens the form anew (a new key), on the item as it is now.
  const [version, setVersion] = useState(0)
  const [kept, setKept] = useState<ReadonlyArray<KeptText>>([])
  const loadTheirs = async (typed: ReadonlyArray<KeptText>) => {
    await reload()
    // Nothing typed since the last load: what was kept then stays.
    setKept((previous) => typed.length > 0 ? typed : previous)
    setVersion((previous) => previous + 1)
  }
  return (
    <Loading loaded={loaded}>
      {([value, response]) => (
        <FreshItemContext.Provider
          value={{ name: (props.name ?? nameOf)(value), theirs: version > 0, kept, loadTheirs }}
        >
          <Fragment key={version}>{props.children(value, response.headers["etag"])}</Fragment>
        </FreshItemContext.Provider>
      )}
    </Loading>
  )
}

/** A form opened in place inside its row, under its own heading `${id}-title`. */
export const InlineSection = (
  props: { readonly id: string; readonly title: string; readonly children: ComponentChildren }
) => (
  <section class="inline-form" aria-labelledby={`${props.id}-title`}>
    <h3 id={`${props.id}-title`}>{props.title}</h3>
    {props.children}
  </section>
)

/**
 * A part of a row that opens in place (an editor, a timeline): `done(text)` closes it and says
 * what changed.
 */
export const useOpenPart = (onChanged: (message: string) => void) => {
  const [open, setOpen] = useState(false)
  return {
    open,
    toggle: () => setOpen(!open),
    close: () => setOpen(false),
    done: (message: string) => {
      setOpen(false)
      onChanged(message)
    }
  }
}

/**
 * A button that opens and closes a part of its row. `hidden` is read by screen readers only, so
 * each row's button has a name of its own ("Edit Database").
 */
export const OpenButton = (props: {
  readonly open: boolean
  readonly onToggle: () => void
  readonly label: ComponentChildren
  readonly hidden: string
}) => (
  <button type="button" aria-expanded={props.open} onClick={props.onToggle}>
    {props.label}
    <span class="visually-hidden">{props.hidden}</span>
  </button>
)

/**
 * A row's requests (delete, pause, publish…): the last one's failure shows in the row; on
 * success `said(value)` is the status line's text, when it is given.
 */
export const useRowActions = (onChanged: (message: string) => void) => {
  const [failure, setFailure] = useState<Failure | null>(null)
  const act = async <A, E,>(
    request: (api: ApiClient) => Effect.Effect<A, E>,
    said?: (value: A) => string
  ): Promise<Outcome<A>> => {
    const outcome = await call(request)
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok && said) onChanged(said(outcome.value))
    return outcome
  }
  return { failure, act }
}
