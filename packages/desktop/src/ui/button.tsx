import type { ButtonHTMLAttributes, ComponentChildren, JSX } from "preact";
import { Icon, type IconName } from "./icons.js";

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "icon"> & {
  variant?: "primary" | "secondary" | "ghost" | "danger";
  icon?: IconName;
  children?: ComponentChildren;
};

export function Button({ variant = "secondary", icon, children, class: className, type, ...rest }: ButtonProps & { type?: "button" | "submit" }): JSX.Element {
  return (
    <button type={type ?? "button"} class={`btn btn-${variant}${className ? ` ${className}` : ""}`} {...rest}>
      {icon && <Icon name={icon} />}
      {children}
    </button>
  );
}

/** A square button holding only an icon; its label is what a screen reader says and the tooltip shows. */
export function IconButton({ icon, label, ...rest }: Omit<ButtonProps, "icon" | "children"> & { icon: IconName; label: string }): JSX.Element {
  return (
    <button type="button" class="icon-btn" aria-label={label} title={label} {...rest}>
      <Icon name={icon} />
    </button>
  );
}
