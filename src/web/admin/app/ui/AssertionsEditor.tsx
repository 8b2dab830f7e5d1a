/**
 * The JSON assertions of an http monitor (docs/monitor-fleet.md, "JSON assertions"): one row per
 * assertion, its path, its check and its value, with buttons to add and remove rows. Each row is
 * a group named "Assertion N", so a screen reader says which row a field belongs to.
 */
import { useEffect, useState } from "preact/hooks"

import { assertionLimits, AssertionOp, type JsonAssertion } from "../../../../domain/JsonAssertion.js"
import { SelectField, TextField } from "./fields.js"

const opLabel: Record<AssertionOp, string> = {
  "==": "equals (==)",
  "!=": "does not equal (!=)",
  "<": "is less than (<)",
  ">": "is more than (>)",
  contains: "contains",
  matches: "matches the pattern",
  exists: "exists"
}
const ops = AssertionOp.literals.map((value) => ({ value, label: opLabel[value] }))

/** One assertion as the form edits it: the value as typed. `key` tells rows apart across removals. */
export interface AssertionRow {
  readonly key: number
  readonly path: string
  readonly op: AssertionOp
  readonly value: string
}

let nextKey = 0
const row = (path = "", op: AssertionOp = "==", value = ""): AssertionRow => ({ key: nextKey++, path, op, value })

const isScalar = (value: unknown): value is string | number | boolean | null =>
  value === null || ["string", "number", "boolean"].includes(typeof value)

/** Whether `text` reads as a JSON scalar, so a string of that text must be written quoted. */
const readsAsJson = (text: string) => {
  try {
    return isScalar(JSON.parse(text))
  } catch {
    return false
  }
}

/** A stored value as the form shows it: text as typed (quoted when it would read as another value), others as JSON. */
const valueText = (assertion: JsonAssertion) => {
  const { value } = assertion
  if (value === undefined) return ""
  if (typeof value === "string") {
    return assertion.op === "matches" || !readsAsJson(value.trim()) ? value : JSON.stringify(value)
  }
  return JSON.stringify(value)
}

/**
 * A typed value as the API takes it: a pattern as typed; for exists nothing when empty; else a
 * number, true, false, null or "quoted text" as JSON, and any other text as it is.
 */
const valueOf = (op: AssertionOp, text: string): JsonAssertion["value"] => {
  if (op === "matches") return text
  const trimmed = text.trim()
  if (op === "exists" && trimmed === "") return undefined
  try {
    const parsed: unknown = JSON.parse(trimmed)
    return isScalar(parsed) ? parsed : text
  } catch {
    return text
  }
}

export const assertionRows = (
  assertions: ReadonlyArray<JsonAssertion> | null | undefined
): ReadonlyArray<AssertionRow> =>
  (assertions ?? []).map((assertion) => row(assertion.path, assertion.op, valueText(assertion)))

/** The rows as the API takes them; rows left blank are dropped, and no row is null (none). */
export const assertionsOf = (rows: ReadonlyArray<AssertionRow>): Array<JsonAssertion> | null => {
  const filled = rows.filter((r) => r.path.trim() !== "" || r.value.trim() !== "")
  if (filled.length === 0) return null
  return filled.map((r) => {
    const value = valueOf(r.op, r.value)
    return value === undefined ? { path: r.path.trim(), op: r.op } : { path: r.path.trim(), op: r.op, value }
  })
}

export const AssertionsEditor = (props: {
  /** Unique within the page; prefixes every control's id. */
  readonly id: string
  readonly rows: ReadonlyArray<AssertionRow>
  readonly onChange: (rows: ReadonlyArray<AssertionRow>) => void
  readonly error?: string | undefined
}) => {
  const { id, rows } = props
  const [said, setSaid] = useState("")
  // The button to focus once the rows have been drawn again after a removal.
  const [focusNext, setFocusNext] = useState<string | null>(null)
  useEffect(() => {
    if (focusNext === null) return
    setFocusNext(null)
    document.getElementById(focusNext)?.focus()
  }, [focusNext])
  const change = (index: number, changes: Partial<AssertionRow>) =>
    props.onChange(rows.map((r, at) => at === index ? { ...r, ...changes } : r))
  const add = () => {
    props.onChange([...rows, row()])
    setSaid(`Assertion ${rows.length + 1} added.`)
  }
  const remove = (index: number) => {
    props.onChange(rows.filter((_, at) => at !== index))
    setSaid(`Assertion ${index + 1} removed.`)
    // The focus goes to the Remove button now in its place, or to Add when none is left after it.
    setFocusNext(index < rows.length - 1 ? `${id}-${index}-remove` : `${id}-add`)
  }
  return (
    <fieldset
      class={props.error ? "assertions invalid" : "assertions"}
      aria-describedby={[`${id}-hint`, props.error ? `${id}-error` : ""].join(" ").trim()}
    >
      <legend>JSON assertions</legend>
      <p id={`${id}-hint`} class="hint">
        Checked on the answer as JSON, in order; the first that fails is the check's error. Path: a JSON Pointer such as
        /data/count or a JSONPath such as $.data.items[0].id. Value: a number, true, false, null or text (quote text
        that reads as one of those, such as "3"); a pattern as typed; for exists, empty or false (must not exist). At
        most {assertionLimits.max}.
      </p>
      {rows.map((r, index) => (
        <fieldset key={r.key} class="assertion-row">
          <legend>Assertion {index + 1}</legend>
          <TextField
            id={`${id}-${index}-path`}
            label="JSON path"
            value={r.path}
            onInput={(path) => change(index, { path })}
          />
          <SelectField
            id={`${id}-${index}-op`}
            label="Comparison"
            value={r.op}
            options={ops}
            onChange={(op) => change(index, { op })}
          />
          <TextField
            id={`${id}-${index}-value`}
            label={r.op === "matches" ? "Pattern" : "Value to compare"}
            value={r.value}
            onInput={(value) => change(index, { value })}
          />
          <button
            type="button"
            id={`${id}-${index}-remove`}
            aria-label={`Remove assertion ${index + 1}`}
            onClick={() => remove(index)}
          >
            Remove
          </button>
        </fieldset>
      ))}
      <button type="button" id={`${id}-add`} disabled={rows.length >= assertionLimits.max} onClick={add}>
        Add assertion
      </button>
      {props.error && <p id={`${id}-error`} class="field-error">{props.error}</p>}
      <p class="hint" role="status">{said}</p>
    </fieldset>
  )
}
