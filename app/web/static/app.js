// TimeTrace pages: keyboard shortcuts, focus for the episode panel, and the sign-in
// link of `timetrace demo --serve`. Everything works without it; it only helps.
(() => {
  "use strict";
  const typing = (el) =>
    el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  const follow = (link) => {
    const href = link.href && link.href.baseVal !== undefined ? link.href.baseVal : link.href;
    if (href) window.location.assign(href);
  };

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const active = document.activeElement;
    if (event.key === "Enter" && active && active.classList.contains("block")) {
      event.preventDefault();  // an SVG link: open its panel the same way in every browser
      follow(active);
      return;
    }
    if (typing(active)) return;
    const target = {
      ArrowLeft: "a[rel=prev]",
      ArrowRight: "a[rel=next]",
      Escape: "#panel a.close",
    }[event.key];
    const link = target && document.querySelector(target);
    if (link) {
      event.preventDefault();
      follow(link);
    }
  });

  // After a navigation, the focus goes where the keyboard user was: the opened panel,
  // or the block whose panel was just closed (Chromium does the same for a focusable
  // fragment target; other browsers only scroll to it).
  const spot = window.location.hash && document.getElementById(window.location.hash.slice(1));
  if (spot) spot.focus();

  // `timetrace demo --serve` prints /signin#token=…: the fragment never reaches a
  // server or a log; the form sends it once, then the address bar forgets it.
  const form = document.getElementById("signin-form");
  if (form && window.location.hash.startsWith("#token=")) {
    form.elements.token.value = decodeURIComponent(window.location.hash.slice(7));
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    form.submit();
  }

  // The Ask page: each question is posted to the agent's chat with the session's CSRF
  // token (EventSource cannot POST), and its Server-Sent Events are shown as they come.
  const askForm = document.getElementById("ask-form");
  if (askForm) {
    const words = JSON.parse(askForm.dataset.words);
    const say = (key, values) =>
      words[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
    const el = (tag, className, text) => {
      const node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined) node.textContent = text;
      return node;
    };
    const field = askForm.elements.question;
    const conversation = askForm.elements.conversation_id;
    const button = askForm.querySelector("button[type=submit]");

    // One event block: "event: kind" and "data: {json}" lines; a ": keepalive" has no data.
    const parse = (block) => {
      let kind = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      return data ? [kind, JSON.parse(data)] : null;
    };

    const newTurn = (question) => {
      const turn = el("article", "turn streaming");
      const parts = {
        turn,
        steps: el("ol", "steps"),
        budget: el("p", "budget muted"),
        answer: el("p", "answer"),
        status: el("p", "status muted"),
      };
      parts.status.setAttribute("role", "status");
      turn.append(el("p", "question", question), parts.steps, parts.budget, parts.answer, parts.status);
      document.getElementById("turns").append(turn);
      return parts;
    };

    const fail = (parts, message) => {
      parts.status.className = "status error";
      parts.status.setAttribute("role", "alert");
      parts.status.textContent = say("ask_failed", { message });
    };

    const show = (parts, kind, data) => {
      if (kind === "step" && data.phase === "call") {
        const item = el("li", "step", say("ask_step_call", { tool: data.tool }) + " ");
        item.dataset.tool = data.tool;
        item.append(el("code", "", JSON.stringify(data.arguments)));
        parts.steps.append(item);
      } else if (kind === "step") {
        const open = [...parts.steps.querySelectorAll("li.step")]
          .reverse()
          .find((item) => item.dataset.tool === data.tool && !item.dataset.read);
        const item = open || parts.steps.appendChild(el("li", "step", data.tool));
        item.dataset.read = "1";
        item.append(" · " + (data.error
          ? say("ask_step_error", { error: data.error })
          : say("ask_step_result", { tokens: data.tokens })));
      } else if (kind === "budget") {
        parts.budget.textContent = say("ask_budget", data);
      } else if (kind === "subagent") {
        const detail = Object.entries(data).map(([key, value]) => `${key}=${value}`).join(" ");
        parts.steps.append(el("li", "subagent", say("ask_subagent", { detail })));
      } else if (kind === "token") {
        parts.answer.textContent += data.text;
      } else if (kind === "done") {
        if (!parts.answer.textContent) parts.answer.textContent = data.answer;
        const summary = say("ask_done", {
          mode: data.mode,
          tools: data.tools_called.length,
          tokens: data.tokens_used,
          ms: data.elapsed_ms,
        });
        parts.status.textContent =
          data.status === "cancelled" ? `${say("ask_cancelled", {})} ${summary}` : summary;
        if (data.episode_ids.length) {
          const cited = el("p", "cited muted", say("ask_cited", {}));
          for (const id of data.episode_ids) {
            const link = el("a", "", `#${id}`);
            link.href = `/episodes/${id}`;
            cited.append(" ", link);
          }
          parts.turn.append(cited);
        }
        parts.turn.dataset.turn = data.turn;
        parts.turn.classList.add("done");
        conversation.value = data.conversation_id;
        window.history.replaceState(null, "", `/ask?conversation=${data.conversation_id}`);
      } else if (kind === "error") {
        fail(parts, data.message);
      }
    };

    askForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const question = field.value.trim();
      if (!question || button.disabled) return;
      const parts = newTurn(question);
      const body = { question };
      if (conversation.value) body.conversation_id = Number(conversation.value);
      field.value = "";
      button.disabled = true;
      try {
        const reply = await fetch("/api/v1/agent/chat", {
          method: "POST",
          credentials: "same-origin",
          headers: {
            "Content-Type": "application/json",
            Accept: "text/event-stream",
            "X-CSRF-Token": askForm.dataset.csrf,
          },
          body: JSON.stringify(body),
        });
        if (!reply.ok) {
          const problem = await reply.json().catch(() => ({}));
          fail(parts, problem.error || `HTTP ${reply.status}`);
          return;
        }
        const reader = reply.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          buffer += decoder.decode(value, { stream: !done });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const event = parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event) show(parts, ...event);
          }
          if (done) break;
        }
      } catch (error) {
        fail(parts, String(error));
      } finally {
        parts.turn.classList.remove("streaming");
        button.disabled = false;
        field.focus();
      }
    });
  }
})();
