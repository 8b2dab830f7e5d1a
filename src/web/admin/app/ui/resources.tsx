/**
 * The form-and-table kit every resource screen is made of: the page with its status line, the
 * list as a table, a row's actions and its forms opened in place, and the form that creates or
 * edits one. A screen supplies only its fields, its columns and its words.
 */
import type { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import type { ComponentChildren, VNode } from "preact"
import { useState } from "preact/hooks"

import { type ApiClient, call, type Outcome } from "../core/api.js"
import type { Failure } from "../core/failure.js"
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

/**
 * A form: its failure first, its fields, then submit (and Cancel when it can be closed). A form
 * that stays put after saving (a profile) says so in its own status line, `message`.
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
}) => (
  <form
    onSubmit={(event) => {
      event.preventDefault()
      void props.onSubmit()
    }}
    noValidate
    aria-labelledby={`${props.id}-title`}
  >
    {props.message !== undefined && <StatusMessage text={props.message} />}
    <FailureMessage failure={props.failure} />
    {props.children}
    <div class="actions">
      <button type="submit" class="primary" disabled={props.busy}>{props.submitLabel}</button>
      {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
    </div>
  </form>
)

/**
 * An editor over the item read afresh with its ETag, so that saving sends `If-Match`: when
 * someone else changed the item since, the save is refused (412) and the form says so instead
 * of overwriting their change.
 */
export const FreshEditor = <A,>(props: {
  readonly read: (api: ApiClient) => Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], unknown>
  readonly children: (value: A, etag: string | undefined) => ComponentChildren
}) => {
  const [loaded] = useLoad(props.read)
  return <Loading loaded={loaded}>{([value, response]) => props.children(value, response.headers["etag"])}</Loading>
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
