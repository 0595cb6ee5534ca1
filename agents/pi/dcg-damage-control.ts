/**
 * dcg-damage-control: the pi extension of dcg (destructive command guard).
 *
 * It keeps no rules of its own. Every tool call goes to the dcg binary
 * (`dcg hook --agent pi`, one JSON object in, one out), so pi, Claude Code, Codex,
 * Gemini CLI and Cursor are all guarded by one policy and one engine.
 *
 *   - session_start: counts the active rules (embedded defaults, user and project
 *     policy, and .pi/damage-control-rules.yaml when present); a file with problems
 *     is reported and the rest stays active.
 *   - tool_call: bash, read, write, edit, grep, find, ls (and any other tool) are
 *     decided by dcg: deny blocks with "Security Policy Violation: <reason>", ask
 *     asks the user (30 s, then no), and with no UI an ask is a deny. A dcg that
 *     cannot be run or answers nonsense blocks the call: never fail open.
 *
 * Installed by `dcg install --agent pi [--project|--user]`, which fills in the path
 * of the dcg binary below. $DCG_BIN overrides it.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const INSTALLED_DCG = "@@DCG_BIN@@";
const DCG: string =
	process.env.DCG_BIN || (INSTALLED_DCG.startsWith("@" + "@") ? "dcg" : INSTALLED_DCG);
const RULES_FILE = join(".pi", "damage-control-rules.yaml");
const STATUS_KEY = "damage-control";
const HOOK_TIMEOUT_MS = 15000;
const CONFIRM_TIMEOUT_MS = 30000;
const LAST_VIOLATION_MS = 15000;

interface DcgAnswer {
	action: "allow" | "log" | "warn" | "ask" | "deny";
	block?: boolean;
	reason?: string;
	rule?: string;
	title?: string;
	message?: string;
	matched?: string;
}

interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
	error?: string;
}

/** Runs dcg with input on stdin; never rejects. */
function runDcg(args: string[], input: string, cwd: string, timeoutMs: number): Promise<RunResult> {
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let done = false;
		const finish = (r: RunResult) => {
			if (!done) {
				done = true;
				clearTimeout(timer);
				resolve(r);
			}
		};
		let child;
		try {
			child = spawn(DCG, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
		} catch (e) {
			resolve({ code: null, stdout, stderr, error: String(e) });
			return;
		}
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			finish({ code: null, stdout, stderr, error: `dcg did not answer within ${timeoutMs} ms` });
		}, timeoutMs);
		child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
		child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
		child.on("error", (e: Error) => finish({ code: null, stdout, stderr, error: e.message }));
		child.on("close", (code: number | null) => finish({ code, stdout, stderr }));
		child.stdin.on("error", () => {});
		child.stdin.end(input);
	});
}

/** --policy for the project's damage-control rules, when the file exists. */
function policyArgs(cwd: string): string[] {
	const f = join(cwd, RULES_FILE);
	return existsSync(f) ? ["--policy", f] : [];
}

function short(text: string, max = 80): string {
	const one = text.replace(/\s+/g, " ").trim();
	return one.length > max ? one.slice(0, max - 3) + "..." : one;
}

/** What the call is about, for the log and the status line. */
function describe(toolName: string, input: any): string {
	if (input && typeof input.command === "string") return input.command;
	if (input && typeof input.path === "string") return input.path;
	try {
		return JSON.stringify(input ?? {}).slice(0, 500);
	} catch {
		return toolName;
	}
}

export default function (pi: ExtensionAPI) {
	let ruleCount: number | undefined;
	let statusTimer: ReturnType<typeof setTimeout> | undefined;

	const activeStatus = () =>
		ruleCount === undefined ? "Damage-Control Active" : `Damage-Control Active: ${ruleCount} Rules`;

	const safeUi = (ctx: any, f: (ui: any) => void) => {
		try {
			if (ctx && ctx.ui) f(ctx.ui);
		} catch {
			/* a UI that cannot show something never changes a decision */
		}
	};

	const record = (ctx: any, toolName: string, input: any, rule: string, action: string, what: string) => {
		try {
			pi.appendEntry("damage-control-log", { tool: toolName, input: describe(toolName, input), rule, action });
		} catch {
			/* logging never changes a decision; dcg keeps its own audit log */
		}
		safeUi(ctx, (ui) => {
			ui.setStatus(STATUS_KEY, `Last Violation: ${short(what)}`);
			if (statusTimer) clearTimeout(statusTimer);
			statusTimer = setTimeout(() => {
				safeUi(ctx, (u) => u.setStatus(STATUS_KEY, activeStatus()));
			}, LAST_VIOLATION_MS);
			// A status line must not keep a finished `pi -p` run alive.
			(statusTimer as any).unref?.();
		});
	};

	pi.on("session_start", async (_event, ctx) => {
		const cwd = ctx.cwd;
		const pargs = policyArgs(cwd);
		try {
			const st = await runDcg([...pargs, "status"], "", cwd, HOOK_TIMEOUT_MS);
			const m = /dcg active: (\d+) rules/.exec(st.stdout);
			ruleCount = m ? Number(m[1]) : undefined;
			if (st.error || st.code !== 0)
				safeUi(ctx, (ui) =>
					ui.notify(`dcg: cannot load the policy (${st.error ?? short(st.stderr, 200)}); every call will be checked and refused if dcg cannot answer`, "error"),
				);
			if (pargs.length && process.env.DCG_POLICY)
				// dcg takes one extra policy file: --policy wins over $DCG_POLICY.
				safeUi(ctx, (ui) =>
					ui.notify(`dcg: ${RULES_FILE} is used instead of $DCG_POLICY (${process.env.DCG_POLICY}) for pi's calls`, "warning"),
				);
			if (pargs.length) {
				const lint = await runDcg(["rules", "lint", pargs[1]], "", cwd, HOOK_TIMEOUT_MS);
				if (lint.code !== 0) {
					const problems = (lint.stdout + lint.stderr).trim().split("\n").slice(0, 5).join("\n");
					safeUi(ctx, (ui) =>
						ui.notify(`dcg: ${RULES_FILE} has problems; the rest of the policy stays active:\n${problems}`, "warning"),
					);
				}
			}
		} catch (e) {
			safeUi(ctx, (ui) => ui.notify(`dcg: ${String(e)}`, "error"));
		}
		safeUi(ctx, (ui) => ui.setStatus(STATUS_KEY, activeStatus()));
	});

	pi.on("session_shutdown", async () => {
		if (statusTimer) clearTimeout(statusTimer);
	});

	pi.on("tool_call", async (event, ctx) => {
		const cwd = ctx.cwd;
		// dcg decides write and edit on their path: the new content (which can be
		// large) stays out of the call.
		const raw: any = event.input;
		const input =
			(event.toolName === "write" || event.toolName === "edit") && raw && typeof raw === "object"
				? { path: raw.path }
				: raw;
		const payload = JSON.stringify({
			type: "tool_call",
			toolName: event.toolName,
			toolCallId: event.toolCallId,
			input,
			cwd,
		});
		let ans: DcgAnswer;
		const r = await runDcg(["hook", "--agent", "pi", ...policyArgs(cwd)], payload, cwd, HOOK_TIMEOUT_MS);
		try {
			ans = JSON.parse(r.stdout.trim());
			if (!ans || typeof ans !== "object" || typeof ans.action !== "string") throw new Error("no action");
		} catch {
			// dcg missing, crashed, timed out or answered nonsense: refuse, never fail open.
			const why = r.error ?? (short(r.stderr, 300) || `exit status ${r.code}`);
			ans = {
				action: "deny",
				block: true,
				rule: "hook.internal_error",
				reason: `Security Policy Violation: dcg could not check this call (${why}); it is refused`,
			};
		}
		const rule = ans.rule ?? "?";
		const what = ans.matched || describe(event.toolName, event.input);
		switch (ans.action) {
			case "allow":
				return undefined;
			case "log":
			case "warn":
				if (ans.action === "warn") {
					safeUi(ctx, (ui) => ui.notify(`dcg warning (${rule}): ${ans.reason ?? ""}`, "warning"));
					record(ctx, event.toolName, event.input, rule, "warn", what);
				}
				return undefined;
			case "ask": {
				const reason = ans.reason ?? `Security Policy Violation: ${rule}`;
				if (!ctx.hasUI) {
					safeUi(ctx, (ui) => ui.notify(`dcg blocked (${rule}, no one to ask): ${reason}`, "error"));
					record(ctx, event.toolName, event.input, rule, "deny", what);
					return { block: true, reason: `${reason} (this needs the user's confirmation, and there is no one to ask)` };
				}
				safeUi(ctx, (ui) => ui.notify(`dcg asks (${rule}): ${reason}`, "warning"));
				let confirmed = false;
				try {
					confirmed = await ctx.ui.confirm(
						ans.title ?? "dcg: confirm this call",
						ans.message ?? reason,
						{ timeout: CONFIRM_TIMEOUT_MS },
					);
				} catch {
					confirmed = false;
				}
				record(ctx, event.toolName, event.input, rule, confirmed ? "ask-confirmed" : "ask-denied", what);
				return confirmed ? undefined : { block: true, reason: "User denied execution" };
			}
			default: {
				const reason = ans.reason ?? `Security Policy Violation: refused by dcg (${rule})`;
				safeUi(ctx, (ui) => ui.notify(`dcg blocked (${rule}): ${reason}`, "error"));
				record(ctx, event.toolName, event.input, rule, "deny", what);
				return { block: true, reason };
			}
		}
	});
}
