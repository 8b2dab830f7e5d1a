/**
 * Schema classes whose JSON form is named as the class in the OpenAPI document. Effect names the
 * encoded side of a `Schema.Class` `<identifier>Encoded` unless that side has an identifier of its
 * own; these give it the class's identifier (and description), so the document's components keep
 * the names clients know (`Subscribe`, `NotFound`, …).
 */
import { Effect, Predicate, Schema, SchemaAST } from "effect"

/** The struct of `fields`, named `identifier` (and described as the class is) in the OpenAPI document. */
const named = <const Fields extends Schema.Struct.Fields>(
  identifier: string,
  fields: Fields,
  description: string | undefined
) => Schema.Struct(fields).annotate(description === undefined ? { identifier } : { identifier, description })

/** The class declarations of `Class`, each encoding plain objects too, once per class. */
const plainEncoding = new WeakMap<object, SchemaAST.Declaration>()

/**
 * `ast`, but encoding a plain object with the class's fields as an instance (v3's classes did:
 * typed-client payloads and handler answers are object literals). The fields are still checked
 * by the encoding; decoding and `Schema.is` still want an instance.
 */
const encodingPlainObjects = (ast: SchemaAST.Declaration): SchemaAST.Declaration =>
  new SchemaAST.Declaration(
    ast.typeParameters,
    ast.run,
    ast.annotations,
    ast.checks,
    ast.encoding,
    ast.context,
    ast.encodingChecks,
    (typeParameters) => {
      const strict = (ast.encodingRun ?? ast.run)(typeParameters)
      return (input, self, options) => Predicate.isObject(input) ? Effect.succeed(input) : strict(input, self, options)
    }
  )

/** `Schema.Class`, its JSON form named `identifier` in the OpenAPI document. */
export const Class = <Self = never>(identifier: string) =>
<const Fields extends Schema.Struct.Fields>(
  fields: Fields,
  annotations?: Schema.Annotations.Declaration<Self, readonly [Schema.Struct<Fields>]>
) => {
  const base = Schema.Class<Self>(identifier)(named(identifier, fields, annotations?.description), annotations)
  const classAst = Object.getOwnPropertyDescriptor(base, "ast")?.get
  if (classAst === undefined) throw new Error(`Schema.Class ${identifier} has no ast getter`)
  // The getter's `this` is the subclass the domain declares (`class X extends Class<X>(..)`).
  Object.defineProperty(base, "ast", {
    configurable: true,
    get(this: object) {
      let ast = plainEncoding.get(this)
      if (ast === undefined) {
        ast = encodingPlainObjects(classAst.call(this))
        plainEncoding.set(this, ast)
      }
      return ast
    }
  })
  return base
}

/**
 * A schema-backed error with `_tag` (as `Schema.TaggedError`), its JSON form named `tag` in the
 * OpenAPI document. `_tag` is the last field, so an error encodes as `{ ...fields, _tag }`.
 */
export const TaggedError = <Self = never>() =>
<const Tag extends string, const Fields extends Schema.Struct.Fields>(
  tag: Tag,
  fields: Fields,
  annotations?: Schema.Annotations.Declaration<
    Self,
    readonly [Schema.Struct<Fields & { readonly _tag: Schema.tag<Tag> }>]
  >
) =>
  Schema.Error<Self>(tag)(
    named(tag, { ...fields, _tag: Schema.tag(tag) }, annotations?.description),
    annotations
  )
