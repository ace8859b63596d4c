import type { JSX } from "preact";

/**
 * The page's icons: simple strokes on a 16-unit grid, drawn for this page and
 * shipped inside the bundle. Decorative unless given a label.
 */
const PATHS = {
  plus: "M8 3v10M3 8h10",
  close: "M4 4l8 8M12 4l-8 8",
  search: "M7 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM11 11l3 3",
  chevronRight: "M6 3l5 5-5 5",
  chevronDown: "M3 6l5 5 5-5",
  send: "M3 8h9M8 4l4 4-4 4",
  stop: "M4 4h8v8H4z",
  archive: "M2 4h12v3H2zM3 7v6h10V7M6 10h4",
  unarchive: "M2 4h12v3H2zM3 7v6h10V7M8 12V9M6 10.5l2-2 2 2",
  trash: "M3 4h10M6 4V2h4v2M4 4l1 10h6l1-10",
  settings: "M8 10.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.5 1.5M11.5 11.5L13 13M3 13l1.5-1.5M11.5 4.5L13 3",
  branch: "M5 3v10M5 13a1.5 1.5 0 1 0 0-.1M11 6a1.5 1.5 0 1 0 0-.1M11 6c0 3-6 2-6 5",
  diff: "M5 2v6M2 5h6M2 12h6M10 3l4 10",
  check: "M3 8l3 3 7-7",
  warning: "M8 2l6 12H2zM8 6v4M8 12v.5",
  folder: "M2 4h4l1 1h7v8H2z",
  tool: "M10 2a3 3 0 0 0-2.8 4L2 11.2 4.8 14 10 8.8A3 3 0 0 0 14 6l-2 1-2-1V4z",
  sun: "M8 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM8 1v1.5M8 13.5V15M1 8h1.5M13.5 8H15M3 3l1 1M12 12l1 1M3 13l1-1M12 4l1-1",
  moon: "M13 10A6 6 0 0 1 6 3a6 6 0 1 0 7 7z",
  refresh: "M13 8a5 5 0 1 1-1.5-3.5M13 2v3h-3",
  image: "M2 3h12v10H2zM2 11l4-4 3 3 2-2 3 3M10.5 6a1 1 0 1 0 0-.1",
  at: "M10.5 8a2.5 2.5 0 1 1-5 0 2.5 2.5 0 0 1 5 0zM10.5 8v1.5a1.5 1.5 0 0 0 3 0V8A5.5 5.5 0 1 0 11 12.6",
  commit: "M8 10.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM1 8h4.5M10.5 8H15",
  undo: "M4 7h6a3 3 0 0 1 0 6H7M6 4L3 7l3 3",
  handoff: "M2 8h9M8 5l3 3-3 3M13 3v10",
  dot: "M8 6.5a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3z",
  menu: "M2 4h12M2 8h12M2 12h12",
  copy: "M6 6h8v8H6zM3 10V2h8",
  terminal: "M2 3h12v10H2zM4.5 6l2 2-2 2M8 10h3",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, label, size = 16, class: className }: { name: IconName; label?: string; size?: number; class?: string }): JSX.Element {
  return (
    <svg
      class={className ? `icon ${className}` : "icon"}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      stroke-width="1.5"
      stroke-linecap="round"
      stroke-linejoin="round"
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : "true"}
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
