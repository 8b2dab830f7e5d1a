/** What the user sees besides forms: failures, confirmations, loading, dates and empty lists. */
import { DateTime } from "effect"
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"

import type { Failure } from "../core/failure.js"
import { inOperatorZone, inPageZone, usePageTimeZone } from "../core/timeZone.js"
import type { Loaded } from "./requests.js"

/** A failure of a whole form or action, announced at once. */
export const FailureMessage = ({ failure }: { readonly failure: Failure | null | undefined }) =>
  failure ? <p class="form-error" role="alert">{failure.message}</p> : null

/** Announces a confirmation politely (a live region that exists before its text changes). */
export const StatusMessage = ({ text }: { readonly text: string }) => <p class="status-message" role="status">{text}</p>

/** Renders the loaded value, or says it is loading or why it failed. */
export const Loading = <A,>(
  props: { readonly loaded: Loaded<A>; readonly children: (value: A) => ComponentChildren }
) => {
  switch (props.loaded.state) {
    case "loading":
      return <p class="loading" aria-busy="true">Loading…</p>
    case "failed":
      return <FailureMessage failure={props.loaded.failure} />
    case "ready":
      return <>{props.children(props.loaded.value)}</>
  }
}

/** An instant in the operator's zone, with the status page's zone on hover (core/timeZone.ts). */
const Instant = ({ date, iso }: { readonly date: Date; readonly iso: string }) => {
  const pageZone = usePageTimeZone()
  return (
    <time dateTime={iso} title={inPageZone(date, pageZone)}>
      {inOperatorZone(date)}
    </time>
  )
}

export const When = ({ at, never = "never" }: { readonly at: DateTime.Utc | null; readonly never?: string }) =>
  at === null
    ? <span class="muted">{never}</span>
    : <Instant date={DateTime.toDate(at)} iso={DateTime.formatIso(at)} />

/** An instant the API gives as ISO 8601 text (audit entries, team members), in the browser's local time. */
export const WhenText = ({ at }: { readonly at: string }) => {
  const date = new Date(at)
  return Number.isNaN(date.getTime()) ? <span>{at}</span> : <Instant date={date} iso={at} />
}

/** Whether readers see an item: the visibility stored with it (docs/api.md, "Public visibility"). */
export const VisibilityBadge = ({ isPublic }: { readonly isPublic: boolean }) =>
  isPublic ? <span class="badge ok">Public</span> : <span class="badge">Private</span>

/** A destructive button that asks once more in place (no modal dialog to trap focus). */
export const ConfirmButton = (props: {
  readonly label: string
  readonly confirmLabel: string
  readonly onConfirm: () => void
  readonly disabled?: boolean
  /** A name of its own for the first button, starting with `label` ("Delete Ana (ana@example.com)"). */
  readonly name?: string
}) => {
  const [asking, setAsking] = useState(false)
  const confirm = useRef<HTMLButtonElement>(null)
  // The button pressed is replaced, so focus moves to the question rather than to the page's start.
  useEffect(() => {
    if (asking) confirm.current?.focus()
  }, [asking])
  return asking
    ? (
      <span class="confirm">
        <button
          type="button"
          class="danger"
          ref={confirm}
          onClick={() => {
            setAsking(false)
            props.onConfirm()
          }}
        >
          {props.confirmLabel}
        </button>
        <button type="button" onClick={() => setAsking(false)}>Cancel</button>
      </span>
    )
    : (
      <button
        type="button"
        class="danger-outline"
        aria-label={props.name}
        disabled={props.disabled}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    )
}

/** A table that scrolls sideways on a narrow screen rather than squeezing its columns. */
/**
 * A table in a box that scrolls sideways on narrow screens, focusable so the keyboard can scroll
 * it. The box is a region named after the table, marked as such: a section of the screen often
 * bears the caption's own words, and two landmarks of one name are ambiguous.
 */
export const Table = (props: { readonly caption: string; readonly children: ComponentChildren }) => (
  <div class="table-scroll" tabIndex={0} role="region" aria-label={`${props.caption} (table)`}>
    <table>
      <caption class="visually-hidden">{props.caption}</caption>
      {props.children}
    </table>
  </div>
)
