import type { ImageContent, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { classifyToolCall, type CallClassification } from "../approvals/classifier.js";
import { ExtensionHost } from "../extensions/host.js";
import { extensionRunHooks, runInputHooks } from "../extensions/session-hooks.js";
import type { ModelRef } from "../models/registry.js";
import { codePathOf, type CodePath } from "../resources/code-paths.js";
import { expandSlashInput, listCommands, type CommandInfo } from "../resources/commands.js";
import { renderSkillsSection } from "../resources/skills.js";
import { parseSlashInput } from "../resources/templates.js";
import type { Resource } from "../resources/types.js";
import { AgentSession } from "../run/session.js";
import type { BeforeToolCall, ToolCallInfo } from "../run/session-options.js";
import { buildSystemPrompt } from "../run/system-prompt.js";
import { readSettings, type SettingsSnapshot } from "../settings/read.js";
import { ProcessGroups } from "@knightcode/system/process/groups";
import type { ThreadSandbox } from "@knightcode/system/process/sandbox/thread-sandbox";
import { SpillFiles } from "../tools/spill-files.js";
import { readToolsFile, type ClassifierGateSetting, type ToolsFile } from "../tools/tools-json.js";
import type { Warning } from "@knightcode/system/warning";
import { threadChildEnv } from "./child-env.js";
import { refuseWithoutGate } from "./gates.js";
import { threadResources } from "./thread-resources.js";
import { threadSandbox } from "./thread-sandbox.js";
import { threadBuiltinTools } from "./thread-tools.js";
import { selectTools } from "./tool-selection.js";
import { runSettingsFrom, type ThreadEnvironment, type ThreadRuntimeOptions, type ThreadSandboxing } from "./runtime-options.js";
import { SteerQueue } from "../run/steer-queue.js";
import { TurnController } from "../turn/controller.js";
import type { InputOutcome, InputSource } from "../turn/run-record.js";

export { probeCommands } from "./command-probe.js";
export { probeTools } from "./tool-probe.js";

const PLAN_MODE_SECTION = `# Plan mode

Plan mode is on. Change nothing yet: only read, grep, find, ls and ask_user run, and any other tool call fails. \
Read what you need to understand the task, ask the user about choices that are theirs, then call submit_plan \
with a concrete plan: the goal, the files to change and how, and how to check the result. \
When the user approves it, plan mode ends and you carry the plan out; when they ask for changes, revise it and submit it again.`;

export type { InputOutcome, ThreadEnvironment, ThreadRuntimeOptions, ThreadSandboxing };

/**
 * One thread's agent, composed: settings and project trust for its cwd, the
 * resources they allow, its extension host, its tools and the AgentSession
 * that runs its turns. Knows nothing of JSON-RPC; the server wraps it.
 */
export class ThreadRuntime {
  readonly session: AgentSession;
  /** The one owner of the thread's running turn, its queues and its waits. */
  readonly turns: TurnController;
  readonly host: ExtensionHost;
  private resourceList: Resource[] = [];
  /** The active tools that are our own, not an extension's replacement. */
  private builtinNames = new Set<string>();
  private snapshot: SettingsSnapshot;
  private gateSetting: ClassifierGateSetting = { state: "off" };
  /** tools.json as the thread read it when it loaded or last reloaded: which of our tools it has, and its classifier gate. */
  private toolsFile: ToolsFile;
  /** Extensions are loading: what they register is picked up once, when they are done. */
  private loading = false;
  /** What the system prompt is built from besides plan mode: the active tools and the skills section. */
  private promptParts: { tools: AgentTool[]; skillsSection: string } = { tools: [], skillsSection: "" };
  /** Every tool of ours built at the last refresh, before the selection, and the skills section. */
  private toolPool: { builtins: AgentTool[]; skillsSection: string } = { builtins: [], skillsSection: "" };

  private constructor(
    private readonly options: ThreadRuntimeOptions,
    snapshot: SettingsSnapshot,
    host: ExtensionHost,
    session: AgentSession,
    turns: TurnController,
    /** The approval gate the session asks after extensions: replaced once by useApprovalGate. */
    private readonly gates: { current: BeforeToolCall },
    /** Every process group the thread's commands started and that still lives. */
    readonly processes: ProcessGroups,
    /** The files bash spilled large outputs to; deleted when the thread goes. */
    private readonly spills: SpillFiles,
    /** Contains the thread's commands; none for a thread whose host runs them unsandboxed. */
    readonly sandbox: ThreadSandbox | undefined,
  ) {
    this.snapshot = snapshot;
    this.toolsFile = readToolsFile(options.environment.agentDir);
    this.host = host;
    this.session = session;
    this.turns = turns;
  }

  /** Loads everything a thread needs; the warnings are for the answer that opened the thread. */
  static async create(options: ThreadRuntimeOptions): Promise<{ runtime: ThreadRuntime; warnings: Warning[] }> {
    const { environment: env, cwd } = options;
    const trust = env.trust.decisionFor(cwd);
    const snapshot = readSettings({ agentDir: env.agentDir, cwd, trust });
    const warnings: Warning[] = [...snapshot.errors];
    let session!: AgentSession;
    let runtime: ThreadRuntime | undefined;
    const turns = options.turns ?? new TurnController({ threadId: options.threadId });
    const gates = { current: options.approvalGate ?? refuseWithoutGate };
    const processes = new ProcessGroups();
    const sandbox = options.sandboxing === undefined ? undefined : threadSandbox(options, options.sandboxing, () => runtime?.settings ?? snapshot);
    const spills = new SpillFiles({ onError: (path, error) => env.log?.(`cannot delete the output file ${path}: ${(error as Error).message}`) });
    const host = new ExtensionHost({
      threadId: options.threadId,
      cwd,
      mode: options.mode,
      hasUI: options.hasUI,
      ui: options.ui,
      registry: env.registry,
      env: env.env,
      // The settings a reload read, once there was one.
      childEnv: () => threadChildEnv(env, runtime?.settings ?? snapshot),
      model: () => session?.model,
      turnSignal: () => turns.signal,
      abort: () => turns.interruptRun(),
      isIdle: () => !turns.busy,
      appendEntry: (customType, data) => session?.appendSafely({ type: "custom", customType, data }),
      // The owner of the turns decides: into the running turn, before the next, or a turn of its own.
      sendMessage: (message, sendOptions) => turns.deliver(message, sendOptions),
      warn: (warning) => options.onWarning(warning),
      // A tool registered after loading (an MCP server's, once it connects) is offered from the next model request on.
      changed: () => {
        if (runtime && !runtime.loading) runtime.applyToolSelection();
        options.onChanged?.();
      },
      runTool: (parentId, name, params, signal) => session.runNestedTool(parentId, name, params, signal),
      ...(options.newSession ? { newSession: options.newSession } : {}),
      ...(options.subAgents ? { subAgents: options.subAgents } : {}),
      log: env.log,
      factories: env.extensionFactories,
      processes,
      ...(sandbox ? { sandbox } : {}),
      // The settings a reload read, once there was one.
      hookTimeoutMs: () => (runtime?.settings ?? snapshot).effective.extensionHookTimeoutMs,
    });
    const effective = snapshot.effective;
    const hooks = extensionRunHooks(host);
    session = new AgentSession({
      threadId: options.threadId,
      cwd,
      transcript: options.transcript,
      registry: env.registry,
      systemPrompt: "",
      tools: [],
      settings: runSettingsFrom(effective),
      defaultModel: { provider: effective.defaultProvider ?? undefined, id: effective.defaultModel ?? undefined },
      defaultThinkingLevel: effective.defaultThinkingLevel as ModelThinkingLevel,
      // Extensions see (and may change or block) a call before the approval gate asks the user about it.
      beforeToolCall: async (call, signal) => (await hooks.beforeToolCall(call, signal)) ?? gates.current(call, signal),
      afterToolCall: hooks.afterToolCall,
      hooks: hooks.hooks,
      steers: new SteerQueue(),
      ...(options.writer ? { writer: options.writer } : {}),
    });
    runtime = new ThreadRuntime(options, snapshot, host, session, turns, gates, processes, spills, sandbox);
    const bound = runtime;
    turns.bind({ session, processInput: (text, images, source, signal) => bound.processInput(text, images, source, signal) });
    warnings.push(...(await runtime.loadResources(trust === true)));
    warnings.push(...(await runtime.loadClassifierGate()));
    warnings.push(...runtime.modelWarnings());
    return { runtime, warnings };
  }

  private async loadResources(trusted: boolean): Promise<Warning[]> {
    const { environment: env, cwd } = this.options;
    const found = threadResources(env, cwd, this.snapshot, trusted);
    this.resourceList = found.resources;
    this.loading = true;
    let loaded: Warning[];
    try {
      loaded = await this.host.load(found.extensions);
    } finally {
      this.loading = false;
    }
    this.refreshToolsAndPrompt();
    return [...found.warnings, ...loaded];
  }

  /**
   * Takes the classifier gate from the tools.json the thread read, after the
   * extensions (which may register its model's provider) have loaded. A
   * model nobody knows breaks the gate, which then fails closed. Returns
   * every warning about the file, once per load.
   */
  private async loadClassifierGate(): Promise<Warning[]> {
    const { registry } = this.options.environment;
    const file = this.toolsFile;
    this.gateSetting = file.gate;
    if (file.gate.state !== "on") return file.warnings;
    const { provider, id } = file.gate.config.model;
    const known = await registry.find({ provider, id }).catch(() => undefined);
    if (known) return file.warnings;
    const reason = `${file.path}: the classifier gate's model ${provider}/${id} is not a known model`;
    this.gateSetting = { state: "broken", reason };
    return [
      ...file.warnings,
      { message: `${reason}; until it is fixed, the classifier gate asks you about every call it would judge`, source: "settings", path: file.path },
    ];
  }

  /** What is wrong with models.json and auth.json, read after the extensions registered their providers. */
  private modelWarnings(): Warning[] {
    const found = this.options.environment.registry.configWarnings();
    return found.map((warning) => ({ ...warning, source: "models" as const }));
  }

  /** Whether the classifier gate judges calls, as tools.json said when the thread loaded or last reloaded. */
  get classifierGate(): ClassifierGateSetting {
    return this.gateSetting;
  }

  /**
   * The classifier gate's verdict on a call; undefined while the gate is
   * off. A broken gate answers `unjudged` with what is wrong.
   */
  async classifyToolCall(call: ToolCallInfo, signal: AbortSignal | undefined): Promise<CallClassification | undefined> {
    const gate = this.gateSetting;
    if (gate.state === "off") return undefined;
    if (gate.state === "broken") return { verdict: "unjudged", reason: gate.reason };
    const { environment: env, cwd } = this.options;
    return classifyToolCall({
      registry: env.registry,
      config: gate.config,
      call: { toolName: call.toolName, args: call.args, cwd, agentDir: env.agentDir },
      ...(signal ? { signal } : {}),
    });
  }

  /** Recomputes the tool set and the system prompt from settings, extensions and skills. */
  refreshToolsAndPrompt(): void {
    const { cwd, environment: env } = this.options;
    const builtins = threadBuiltinTools({
      context: {
        cwd,
        env: () => this.childEnv(),
        agentDir: env.agentDir,
        ...(env.secrets ? { secretFiles: env.secrets.files } : {}),
        processes: this.processes,
        spills: this.spills,
        ...(this.sandbox ? { sandbox: this.sandbox } : {}),
      },
      ...(this.options.hasUI && this.options.askUser ? { askUser: this.options.askUser } : {}),
      ...(this.options.submitPlan ? { submitPlan: this.options.submitPlan } : {}),
      ...(this.options.subAgents ? { subAgents: this.options.subAgents } : {}),
      toolsFile: this.toolsFile,
    });
    const skills = this.resourceList
      .filter((r) => r.type === "skills" && r.enabled && !r.shadowedBy)
      .map((r) => ({ name: r.name, description: r.description, path: r.path }));
    this.toolPool = { builtins, skillsSection: renderSkillsSection(skills) };
    this.applyToolSelection();
  }

  /**
   * Chooses the offered tools from the ones built last (plan mode adds
   * ask_user and submit_plan) and rebuilds the system prompt. The tool
   * objects stay the same, and a running turn keeps the tools it started
   * with: the engine copies them when a run begins.
   */
  applyToolSelection(): void {
    const { builtins, skillsSection } = this.toolPool;
    const only = this.options.onlyTools ? new Set(this.options.onlyTools) : undefined;
    const tools = selectTools(builtins, this.host.tools(), this.snapshot.effective.defaultTools, { planMode: this.planMode, ...(only ? { only } : {}) });
    this.builtinNames = new Set(tools.filter((tool) => builtins.includes(tool)).map((tool) => tool.name));
    this.session.setTools(tools);
    this.promptParts = { tools, skillsSection };
    this.refreshPrompt();
  }

  /** The system prompt from the active tools, the skills and plan mode. */
  private refreshPrompt(): void {
    const { tools, skillsSection } = this.promptParts;
    const appendix = [...(skillsSection === "" ? [] : [skillsSection]), ...(this.planMode ? [PLAN_MODE_SECTION] : [])];
    this.session.setSystemPrompt(buildSystemPrompt({ cwd: this.options.cwd, agentDir: this.options.environment.agentDir, tools, appendix }));
  }

  /**
   * Plan mode changes what the model is offered and told from the next turn
   * on (a running turn keeps its tools and instructions): ask_user and
   * submit_plan join the tools. What it may run is the approval gate's to
   * enforce, at once.
   */
  private get planMode(): boolean {
    return this.options.planMode?.() ?? false;
  }

  /**
   * The approval gate the session asks about every call, after extensions'
   * tool_call handlers: a gate that needs the runtime (its tools, its
   * sandbox) is built on it and put in place here.
   */
  useApprovalGate(gate: BeforeToolCall): void {
    this.gates.current = gate;
  }

  /** Whether the active tool of this name is the built-in one (an extension may replace any tool), or one the running turn offers. */
  isBuiltinTool(name: string): boolean {
    return this.builtinNames.has(name) || (this.session.runningTurn?.tools.some((tool) => tool.name === name) ?? false);
  }

  /**
   * What makes a write to `path` a change to code this server loads: an
   * extension, one of its imports, or a package that global settings, `-e`
   * or trusted project settings name. Undefined for any other path.
   */
  codePathOf(path: string): CodePath | undefined {
    const { environment: env, cwd } = this.options;
    return codePathOf(path, {
      agentDir: env.agentDir,
      cwd,
      cliExtensions: env.extensionPaths,
      isTrusted: (folder) => env.trust.decisionFor(folder) === true,
    });
  }

  /** The environment a program the thread starts now gets (see threadChildEnv). */
  childEnv(): NodeJS.ProcessEnv {
    return threadChildEnv(this.options.environment, this.snapshot);
  }

  /** The agent folder this thread's settings, extensions and credentials come from. */
  get agentDir(): string {
    return this.options.environment.agentDir;
  }

  /** The files the server keeps its own secrets in (the `--listen-token-file`). */
  get secretFiles(): readonly string[] {
    return this.options.environment.secrets?.files ?? [];
  }

  get settings(): SettingsSnapshot {
    return this.snapshot;
  }

  get resources(): readonly Resource[] {
    return this.resourceList;
  }

  /** Extension commands, prompt templates and skills, as `/` commands without the slash. */
  commands(): CommandInfo[] {
    return listCommands(this.resourceList, this.host.commands());
  }

  /**
   * What user input becomes: an extension command (handled), then the input
   * handlers (continue, transform or handle), then a prompt template or
   * skill expansion. Aborting the signal stops waiting for handlers.
   */
  async processInput(text: string, images: ImageContent[], source: InputSource, signal?: AbortSignal): Promise<InputOutcome> {
    const slash = parseSlashInput(text);
    const command = slash ? await this.host.runCommand(slash.name, slash.args) : undefined;
    if (command) return { action: "handled", ...(command.newThreadId ? { threadId: command.newThreadId } : {}) };
    const hooked = await runInputHooks(this.host, { text, images, source }, signal);
    if (hooked.action === "handled") return hooked;
    const expanded = expandSlashInput(hooked.text, this.resourceList);
    return { action: "continue", text: expanded?.message ?? hooked.text, images: hooked.images };
  }

  /** Applies a thread's own model/thinking-level choice (thread/start, settings/update). */
  async choose(options: { model?: ModelRef; thinkingLevel?: ModelThinkingLevel }): Promise<void> {
    if (options.model) await this.session.setModel(options.model);
    if (options.thinkingLevel) await this.session.setThinkingLevel(options.thinkingLevel);
  }

  /**
   * `/reload`: every extension is shut down and loaded anew, with fresh
   * settings and resources. `afterShutdown` runs once the old extensions
   * are gone, before any new one loads or starts.
   */
  async reload(options: { afterShutdown?: () => void } = {}): Promise<Warning[]> {
    await this.host.dispose("reload");
    options.afterShutdown?.();
    const { environment: env, cwd } = this.options;
    const trust = env.trust.decisionFor(cwd);
    this.snapshot = readSettings({ agentDir: env.agentDir, cwd, trust });
    this.toolsFile = readToolsFile(env.agentDir);
    const warnings = [...this.snapshot.errors, ...(await this.loadResources(trust === true)), ...(await this.loadClassifierGate()), ...this.modelWarnings()];
    await this.host.emit("session_start", { reason: "reload" });
    return warnings;
  }

  async start(reason: "startup" | "resume" | "fork"): Promise<void> {
    await this.host.emit("session_start", { reason });
  }

  async dispose(reason: "unload" | "shutdown"): Promise<void> {
    this.session.dispose();
    try {
      await this.host.dispose(reason);
    } finally {
      // After the extensions' shutdown handlers, which may still run commands.
      await this.processes.dispose();
      await this.spills.dispose();
      // Last: its private temporary folder may be in use until every process is gone.
      await this.sandbox?.dispose();
    }
  }
}
