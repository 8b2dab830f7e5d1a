/**
 * Labelled form controls. Each shows its hint and its error in words right below it, tied to
 * the control with `aria-describedby` (and `aria-invalid` while in error), so a screen reader
 * reads the error with the field.
 */
import type { ComponentChildren, InputHTMLAttributes } from "preact"

interface FieldProps {
  /** Unique within the page: the form's id plus the field name. */
  readonly id: string
  readonly label: string
  readonly error?: string | undefined
  readonly hint?: string | undefined
}

const describedBy = ({ id, error, hint }: FieldProps) =>
  [hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined].filter(Boolean).join(" ") || undefined

const Help = ({ id, error, hint }: FieldProps) => (
  <>
    {hint && <p id={`${id}-hint`} class="hint">{hint}</p>}
    {error && <p id={`${id}-error`} class="field-error">{error}</p>}
  </>
)

type TextFieldProps = FieldProps & {
  readonly value: string
  readonly onInput: (value: string) => void
  readonly type?: "text" | "email" | "password" | "url" | "number" | "datetime-local"
  readonly required?: boolean
  readonly autoComplete?: string
  readonly list?: string
  readonly inputMode?: "numeric" | "url" | "email"
  /** Shown and sent with the form (a password manager reads the account's e-mail), not edited. */
  readonly readOnly?: boolean
}

// Preact types `<input>` as a union keyed by a literal `type`; one component serves several types.
const inputAttributes = (props: TextFieldProps) =>
  ({
    id: props.id,
    type: props.type ?? "text",
    value: props.value,
    required: props.required,
    autoComplete: props.autoComplete,
    list: props.list,
    inputMode: props.inputMode,
    readOnly: props.readOnly,
    "aria-invalid": props.error ? "true" : undefined,
    "aria-describedby": describedBy(props),
    onInput: (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value)
  }) as unknown as InputHTMLAttributes

export const TextField = (props: TextFieldProps) => (
  <div class={props.error ? "field invalid" : "field"}>
    <label for={props.id}>{props.label}{props.required && <span class="required">(required)</span>}</label>
    <input {...inputAttributes(props)} />
    <Help {...props} />
  </div>
)

export const TextArea = (props: FieldProps & { readonly value: string; readonly onInput: (value: string) => void }) => (
  <div class={props.error ? "field invalid" : "field"}>
    <label for={props.id}>{props.label}</label>
    <textarea
      id={props.id}
      rows={3}
      value={props.value}
      aria-invalid={props.error ? "true" : undefined}
      aria-describedby={describedBy(props)}
      onInput={(event) => props.onInput(event.currentTarget.value)}
    />
    <Help {...props} />
  </div>
)

export const SelectField = <V extends string,>(
  props: FieldProps & {
    readonly value: V
    readonly options: ReadonlyArray<{ readonly value: V; readonly label: string }>
    readonly onChange: (value: V) => void
  }
) => (
  <div class={props.error ? "field invalid" : "field"}>
    <label for={props.id}>{props.label}</label>
    <select
      id={props.id}
      value={props.value}
      aria-invalid={props.error ? "true" : undefined}
      aria-describedby={describedBy(props)}
      onChange={(event) => props.onChange(event.currentTarget.value as V)}
    >
      {props.options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
    </select>
    <Help {...props} />
  </div>
)

export const Checkbox = (
  props: FieldProps & { readonly checked: boolean; readonly onChange: (checked: boolean) => void }
) => (
  <div class={props.error ? "field checkbox invalid" : "field checkbox"}>
    <input
      id={props.id}
      type="checkbox"
      checked={props.checked}
      aria-invalid={props.error ? "true" : undefined}
      aria-describedby={describedBy(props)}
      onChange={(event) => props.onChange(event.currentTarget.checked)}
    />
    <label for={props.id}>{props.label}</label>
    <Help {...props} />
  </div>
)

export const Fieldset = (props: { readonly legend: string; readonly children: ComponentChildren }) => (
  <fieldset>
    <legend>{props.legend}</legend>
    {props.children}
  </fieldset>
)

/**
 * One of a few values, each a radio button drawn as a large segment (one tap on a phone, where a
 * menu takes two). Arrow keys move between them, as for any radio group.
 */
export const ChoiceField = <V extends string,>(
  props: FieldProps & {
    readonly value: V
    readonly options: ReadonlyArray<{ readonly value: V; readonly label: string }>
    readonly onChange: (value: V) => void
  }
) => (
  <fieldset
    class={props.error ? "choices invalid" : "choices"}
    aria-describedby={describedBy(props)}
    aria-invalid={props.error ? "true" : undefined}
  >
    <legend>{props.label}</legend>
    <div class="choice-options">
      {props.options.map((option) => (
        <label key={option.value} class="choice">
          <input
            type="radio"
            name={props.id}
            value={option.value}
            checked={props.value === option.value}
            onChange={() => props.onChange(option.value)}
          />
          <span>{option.label}</span>
        </label>
      ))}
    </div>
    <Help {...props} />
  </fieldset>
)
