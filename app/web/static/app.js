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

  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // Labels along an axis: every k-th, k the smallest that keeps them apart at this
  // width, those at the ends anchored inside; any that would still touch its shown
  // neighbour is left out. `scale` turns a label's own units into pixels.
  const thin = (labels, xs, width, scale, marks, fixed) => {
    labels.forEach((label) => label.removeAttribute("display"));
    (marks || []).forEach((mark) => mark.removeAttribute("display"));
    if (!labels.length) return;
    const widths = labels.map((label) => label.getBBox().width * scale);
    const gap = labels.length > 1 ? xs[1] - xs[0] : width;
    const place = (every) => {
      let right = -Infinity;
      return labels.map((label, i) => {
        const half = widths[i] / 2;
        const own = fixed && fixed[i] !== "middle" ? fixed[i] : null;
        const anchor = own || (xs[i] - half < 0 ? "start" : xs[i] + half > width ? "end" : "middle");
        const left = anchor === "start" ? xs[i] : anchor === "end" ? xs[i] - widths[i] : xs[i] - half;
        const fits = left >= right + 6;
        const shown = i % every === 0 && fits;
        if (shown) right = left + widths[i];
        return { anchor, shown, dropped: i % every === 0 && !fits };
      });
    };
    // The smallest regular step whose labels all fit; failing that, the greedy fit.
    let every = Math.max(1, Math.ceil((Math.max(...widths) + 8) / Math.max(gap, 1)));
    let plan = place(every);
    while (plan.some((p) => p.dropped) && every < labels.length) plan = place(++every);
    labels.forEach((label, i) => {
      label.setAttribute("text-anchor", plan[i].anchor);
      if (!plan[i].shown) {
        label.setAttribute("display", "none");
        if (marks && marks[i]) marks[i].setAttribute("display", "none");
      }
    });
  };

  const fitTicks = (axis) => {
    const labels = [...axis.querySelectorAll("text")];
    const width = axis.getBoundingClientRect().width;
    const xs = labels.map((label) => (parseFloat(label.getAttribute("x")) / 100) * width);
    thin(labels, xs, width, 1, [...axis.querySelectorAll("line")]);
  };

  // Block labels: cut with an ellipsis to the block's width, or left out when even one
  // character would not fit (the full title is in the tooltip and the accessible name).
  const fitLabels = (root) => {
    for (const text of root.querySelectorAll("a.block svg text")) {
      const full = text.dataset.full || text.textContent;
      text.dataset.full = full;
      text.textContent = full;
      // The block's own rectangle: an inner <svg>'s box is its content's, not its clip.
      const room = text.closest("a.block").querySelector("rect").getBoundingClientRect().width - 8;
      if (text.getComputedTextLength() <= room) continue;
      let lo = 0;
      let hi = full.length;
      while (lo < hi) {  // the longest prefix that fits with its ellipsis
        const mid = Math.ceil((lo + hi) / 2);
        text.textContent = full.slice(0, mid) + "…";
        if (text.getComputedTextLength() <= room) lo = mid;
        else hi = mid - 1;
      }
      if (lo === 0) text.textContent = "";
      else text.textContent = full.slice(0, lo) + "…";
    }
  };

  const fitAll = () => {
    document.querySelectorAll("svg.ticks").forEach(fitTicks);
    fitLabels(document);
    document.querySelectorAll("svg.chart").forEach(fitChart);
  };

  // A chart's day or hour labels, thinned like the axis.
  const fitChart = (chart) => {
    const labels = [...chart.querySelectorAll("text.day-label")];
    const scale = chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
    const xs = labels.map((label) => parseFloat(label.getAttribute("x")) * scale);
    const anchors = labels.map((label) => {
      if (!label.dataset.anchor) label.dataset.anchor = label.getAttribute("text-anchor");
      return label.dataset.anchor;
    });
    // The chart placed its first and last labels inside already: they keep their anchors.
    thin(labels, xs, chart.getBoundingClientRect().width, scale, null, anchors);
  };

  // The day timeline: zoom (+ −, ctrl+wheel or pinch) and pan (drag, Shift+← →,
  // sideways wheel), drawn from GET /day/{day}/timeline; the address keeps the view.
  const timeline = (() => {
    const section = document.getElementById("timeline");
    if (!section) return null;
    const d = section.dataset;
    const ms = (text) => Date.parse(text);
    const dayLo = ms(d.dayFrom);
    const dayHi = ms(d.dayTo);
    const wholeLo = ms(d.wholeFrom);
    const wholeHi = ms(d.wholeTo);
    const SPANS = [300, 900, 1800, 3600, 7200, 14400, 28800, 43200].map((s) => s * 1000);
    let lo = ms(d.from);
    let hi = ms(d.to);
    let pending = 0;
    const lanes = section.querySelector(".lanes");
    const axis = section.querySelector("svg.ticks");
    const label = document.getElementById("window-label");
    const words = JSON.parse(section.dataset.words || "{}");

    const draw = (data) => {
      axis.replaceChildren();
      for (const tick of data.ticks) {
        axis.append(svgEl("line", { x1: `${tick.x}%`, x2: `${tick.x}%`, y1: 16, y2: 22 }));
        axis.append(svgEl("text", { x: `${tick.x}%`, y: 12, "text-anchor": "middle" }, tick.label));
      }
      for (const lane of data.lanes) {
        const row = lanes.querySelector(`.lane[data-device="${CSS.escape(lane.device_id)}"]`);
        if (!row) continue;
        const track = row.querySelector("svg.track");
        track.replaceChildren(svgEl("rect", { class: "track-bg", x: 0, y: 0, width: "100%", height: 40 }));
        for (const b of lane.blocks) {
          const attrs = {
            id: b.key,
            class: `block cat-${b.category}${b.selected ? " selected" : ""}`,
            role: "listitem",
            "aria-label": b.tip,
            "data-episode": b.episode_id || "",
            "data-category": b.category,
          };
          if (b.episode_id) attrs.href = `/day/${d.day}?${query(data, b.episode_id)}#panel`;
          const link = svgEl("a", attrs);
          link.append(svgEl("title", {}, b.tip));
          link.append(svgEl("rect", { x: `${b.x}%`, y: 3, width: `${b.width}%`, height: 34, rx: 2 }));
          if (b.width >= 3) {
            const box = svgEl("svg", { x: `${b.x}%`, y: 3, width: `${b.width}%`, height: 34 });
            box.append(svgEl("text", { x: 4, y: 22 }, b.title));
            link.append(box);
          }
          track.append(link);
        }
      }
      section.dataset.level = data.level;
      section.dataset.from = data.from;
      section.dataset.to = data.to;
      label.textContent = `${data.whole ? words.whole : `${data.from_local}–${data.to_local}`} · ${words[data.level]}`;
      fitTicks(axis);
      fitLabels(lanes);
    };

    const query = (data, episode) => {
      const parts = data.whole ? [] : [`from=${data.from_local}`, `to=${data.to_local}`];
      if (episode) parts.push(`episode=${episode}`);
      return parts.join("&");
    };

    const show = async (from, to, whole) => {
      const span = to - from;
      from = Math.round(Math.min(Math.max(from, dayLo), dayHi - span) / 60000) * 60000;
      to = whole ? to : from + span;
      lo = from;
      hi = to;
      const ticket = ++pending;
      const params = whole ? "" : `?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
      const reply = await fetch(`/day/${d.day}/timeline${params}`, { credentials: "same-origin" });
      if (!reply.ok || ticket !== pending) return;
      const data = await reply.json();
      if (ticket !== pending) return;
      draw(data);
      lo = ms(data.from);
      hi = ms(data.to);
      const q = query(data, d.episode);
      window.history.replaceState(null, "", `/day/${d.day}${q ? `?${q}` : ""}${window.location.hash}`);
    };

    const zoom = (steps, anchor) => {
      const span = hi - lo;
      let next;
      if (steps > 0) next = [...SPANS].reverse().find((s) => s < span - 1000) || SPANS[0];
      else next = SPANS.find((s) => s > span + 1000);
      if (!next || next >= wholeHi - wholeLo) {
        show(wholeLo, wholeHi, true);
        return;
      }
      const at = anchor === undefined ? 0.5 : anchor;
      const middle = lo + span * at;
      show(middle - next * at, middle + next * (1 - at), false);
    };

    const pan = (fraction) => {
      const span = hi - lo;
      const whole = lo === wholeLo && hi === wholeHi;
      if (whole && span >= dayHi - dayLo) return;
      show(lo + span * fraction, hi + span * fraction, false);
    };

    const fractionAt = (clientX) => {
      const box = lanes.querySelector("svg.track").getBoundingClientRect();
      return Math.min(1, Math.max(0, (clientX - box.left) / box.width));
    };

    lanes.addEventListener("wheel", (event) => {
      if (event.ctrlKey) {  // pinch on a trackpad, or ctrl + wheel
        event.preventDefault();
        zoom(event.deltaY < 0 ? 1 : -1, fractionAt(event.clientX));
      } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
        event.preventDefault();
        pan(((event.shiftKey ? event.deltaY : event.deltaX) > 0 ? 1 : -1) * 0.2);
      }
    }, { passive: false });

    // Drag to pan; two fingers to zoom. A drag that moved is not a click on a block.
    const pointers = new Map();
    let dragged = false;
    let startSpread = 0;
    lanes.addEventListener("pointerdown", (event) => {
      pointers.set(event.pointerId, event.clientX);
      dragged = false;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        startSpread = Math.abs(a - b);
      }
    });
    lanes.addEventListener("pointermove", (event) => {
      if (!pointers.has(event.pointerId)) return;
      const before = pointers.get(event.pointerId);
      if (pointers.size === 1 && Math.abs(event.clientX - before) > 6) {
        dragged = true;
        lanes.setPointerCapture(event.pointerId);
        lanes.style.transform = `translateX(${event.clientX - before}px)`;
      } else if (pointers.size === 2) {
        pointers.set(event.pointerId, event.clientX);
        const [a, b] = [...pointers.values()];
        const spread = Math.abs(a - b);
        if (startSpread && Math.abs(spread - startSpread) > 40) {
          dragged = true;
          zoom(spread > startSpread ? 1 : -1, fractionAt((a + b) / 2));
          startSpread = spread;
        }
      }
    });
    const release = (event) => {
      const before = pointers.get(event.pointerId);
      pointers.delete(event.pointerId);
      lanes.style.transform = "";
      if (before === undefined || !dragged || pointers.size) return;
      const width = lanes.querySelector("svg.track").getBoundingClientRect().width;
      pan(-(event.clientX - before) / width);
    };
    lanes.addEventListener("pointerup", release);
    lanes.addEventListener("pointercancel", release);
    lanes.addEventListener("click", (event) => {
      if (dragged) {
        event.preventDefault();
        dragged = false;
      }
    }, true);
    for (const [selector, steps] of [[".zoom-in", 1], [".zoom-out", -1]]) {
      section.querySelector(selector).addEventListener("click", (event) => {
        event.preventDefault();
        zoom(steps);
      });
    }
    section.querySelector(".zoom-all").addEventListener("click", (event) => {
      event.preventDefault();
      show(wholeLo, wholeHi, true);
    });

    return {
      key: (event) => {
        if (["+", "="].includes(event.key)) zoom(1);
        else if (["-", "_"].includes(event.key)) zoom(-1);
        else if (event.shiftKey && event.key === "ArrowLeft") pan(-0.25);
        else if (event.shiftKey && event.key === "ArrowRight") pan(0.25);
        else return false;
        return true;
      },
    };
  })();

  fitAll();
  window.addEventListener("resize", fitAll);

  // The date pickers: a chosen day, week or month opens at once.
  for (const form of document.querySelectorAll("form.picker")) {
    const field = form.querySelector("input");
    field.addEventListener("change", () => {
      if (field.value && field.checkValidity()) form.requestSubmit();
    });
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const active = document.activeElement;
    if (event.key === "Enter" && !event.shiftKey && active && active.classList.contains("block")) {
      event.preventDefault();  // an SVG link: open its panel the same way in every browser
      follow(active);
      return;
    }
    if (typing(active)) return;
    if (timeline && timeline.key(event)) {
      event.preventDefault();
      return;
    }
    if (event.shiftKey) return;
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
        listConversation(data.conversation_id);
        window.history.replaceState(null, "", `/ask?conversation=${data.conversation_id}`);
      } else if (kind === "error") {
        fail(parts, data.message);
      }
    };

    // The sidebar lists this conversation as soon as its first answer is done.
    const listConversation = (id) => {
      const list = document.querySelector("ul.conversations");
      if (!list) return;
      list.querySelectorAll("li.muted").forEach((item) => item.remove());
      list.querySelectorAll("a[aria-current]").forEach((a) => a.removeAttribute("aria-current"));
      const href = `/ask?conversation=${id}`;
      let link = list.querySelector(`a[href="${href}"]`);
      if (!link) {
        const item = el("li");
        link = el("a", "", document.querySelector("#turns .question").textContent);
        link.href = href;
        item.append(link, " ", el("span", "muted turns-n", ""));
        list.prepend(item);
      }
      link.setAttribute("aria-current", "page");
      const count = link.parentNode.querySelector(".muted");
      if (count) count.textContent = `(${document.querySelectorAll("#turns article.turn").length})`;
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
