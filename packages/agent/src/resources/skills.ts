import { basename, dirname } from "node:path";
import { readMarkdownFile, readMarkdownHeader } from "./markdown-file.js";

/** A name usable after `/skill:`: one word, no slash, not too long. */
export function isValidCommandName(name: string): boolean {
  return name.length > 0 && name.length <= 64 && !/[\s/]/.test(name);
}

export interface SkillHeader {
  name: string;
  description?: string;
  problems: string[];
}

function nameAndDescription(path: string, attributes: Record<string, string>, problems: string[]): SkillHeader {
  const folderName = basename(dirname(path));
  const declared = attributes.name?.trim();
  let name = folderName;
  if (declared !== undefined && declared !== "") {
    if (isValidCommandName(declared)) name = declared;
    else problems.push(`skill name "${declared}" has spaces or a slash, or is over 64 characters; using the folder name "${folderName}"`);
  }
  const description = attributes.description?.trim();
  if (!description) problems.push(`skill "${name}" has no description, so the model cannot tell when to use it`);
  return { name, ...(description ? { description } : {}), problems };
}

/** Name and description of a SKILL.md, read from its header only. */
export function readSkillHeader(path: string): SkillHeader {
  const { attributes, problems } = readMarkdownHeader(path);
  return nameAndDescription(path, attributes, [...problems]);
}

export interface Skill {
  name: string;
  description?: string;
  /** The SKILL.md file. */
  path: string;
  /** The skill's folder: paths inside the skill are relative to it. */
  baseDir: string;
  body: string;
  attributes: Record<string, string>;
  problems: string[];
}

export function loadSkill(path: string): Skill {
  const { attributes, body, problems } = readMarkdownFile(path);
  const header = nameAndDescription(path, attributes, [...problems]);
  return { ...header, path, baseDir: dirname(path), body, attributes };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * The system-prompt section that offers skills to the model. Only names,
 * descriptions and locations go in: the model reads a SKILL.md itself when a
 * task calls for it, so unused skills cost a line each, not their whole text.
 * Empty when there is nothing to offer.
 */
export function renderSkillsSection(skills: readonly { name: string; description?: string; path: string }[]): string {
  const offered = skills.filter((s) => s.description);
  if (offered.length === 0) return "";
  const entries = offered.map((s) =>
    [
      "  <skill>",
      `    <name>${escapeXml(s.name)}</name>`,
      `    <description>${escapeXml(s.description!)}</description>`,
      `    <location>${escapeXml(s.path)}</location>`,
      "  </skill>",
    ].join("\n"),
  );
  return [
    "Skills: folders of instructions (and sometimes scripts) for particular kinds of task.",
    "When a task fits a skill's description, read its SKILL.md with the read tool before you start, then follow it.",
    "Relative paths in a skill are relative to the folder that holds its SKILL.md.",
    "",
    "<available_skills>",
    ...entries,
    "</available_skills>",
  ].join("\n");
}

/** The user message behind `/skill:<name> args`: the skill's instructions, then the request. */
export function skillCommandMessage(skill: Pick<Skill, "name" | "path" | "baseDir" | "body">, args: string): string {
  const request = args.trim();
  const parts = [
    `Use the skill "${skill.name}" for this request. Its instructions follow (from ${skill.path}; relative paths in it are relative to ${skill.baseDir}).`,
    "",
    `<skill name="${escapeXml(skill.name)}" location="${escapeXml(skill.path)}">`,
    skill.body.trim(),
    "</skill>",
  ];
  if (request !== "") parts.push("", request);
  return parts.join("\n");
}
