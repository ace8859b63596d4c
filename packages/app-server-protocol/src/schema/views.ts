import { Type, type Static, type TSchema } from "typebox";
import { Closed } from "./common.js";

/**
 * Declarative views (docs/declarative-views.md). Containers nest at most
 * MAX_VIEW_DEPTH levels; the schema spells each level out, so the limit is
 * part of it. What it cannot say: control ids are unique within a view, a
 * select's `value` is one of its `options`, and the size limits.
 */
const MAX_VIEW_DEPTH = 8;

const Id = Type.String({ minLength: 1, description: "Unique among the view's controls." });

export const ViewText = Type.Object({ type: Type.Literal("text"), text: Type.String() }, { ...Closed, $id: "ViewText" });

export const ViewButton = Type.Object({ type: Type.Literal("button"), id: Id, label: Type.String() }, { ...Closed, $id: "ViewButton" });

export const ViewToggle = Type.Object({ type: Type.Literal("toggle"), id: Id, label: Type.String(), value: Type.Boolean() }, { ...Closed, $id: "ViewToggle" });

export const ViewSelect = Type.Object(
  {
    type: Type.Literal("select"),
    id: Id,
    options: Type.Array(Type.String()),
    value: Type.Optional(Type.String({ description: "One of `options`." })),
    label: Type.Optional(Type.String()),
  },
  { ...Closed, $id: "ViewSelect" },
);

export const ViewTextField = Type.Object(
  {
    type: Type.Literal("textField"),
    id: Id,
    value: Type.Optional(Type.String()),
    placeholder: Type.Optional(Type.String()),
    label: Type.Optional(Type.String()),
  },
  { ...Closed, $id: "ViewTextField" },
);

const leaves = [ViewText, ViewButton, ViewToggle, ViewSelect, ViewTextField] as const;

const ViewLeaf = Type.Union([...leaves], { $id: "ViewLeaf", description: "A view node below the deepest container: no container." });

function containers(child: TSchema): TSchema[] {
  const children = Type.Array(child);
  return [
    Type.Object(
      {
        type: Type.Literal("stack"),
        children,
        direction: Type.Optional(Type.Union([Type.Literal("vertical"), Type.Literal("horizontal")])),
      },
      Closed,
    ),
    Type.Object({ type: Type.Literal("list"), children }, Closed),
  ];
}

/** A node with `below` container levels still allowed under it (itself included). */
function level(child: TSchema, below: number): TSchema {
  const name = below === MAX_VIEW_DEPTH ? "View" : `ViewBelow${below}`;
  return Type.Union([...leaves, ...containers(child)], {
    $id: name,
    ...(below === MAX_VIEW_DEPTH
      ? { description: "A declarative view: one node, containers (stack, list) nested at most 8 deep; see docs/declarative-views.md." }
      : {}),
  });
}

type Leaf = Static<(typeof leaves)[number]>;

/**
 * The static type says what a node is, not how deep: spelled out level by
 * level, it would be larger than the compiler writes into a declaration.
 */
export type ViewNode = Leaf | { type: "stack"; children: ViewNode[]; direction?: "vertical" | "horizontal" } | { type: "list"; children: ViewNode[] };

let node: TSchema = ViewLeaf;
for (let below = 1; below <= MAX_VIEW_DEPTH; below++) node = level(node, below);

export const View = Type.Unsafe<ViewNode>(node);
