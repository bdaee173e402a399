/**
 * The filing's life as a picture (an SVG as wide as its box, so its 12 px
 * labels stay 12 px on a phone and in print) with the same facts as a list
 * beside it: the picture is one image to a screen reader, the list is what
 * it reads.
 */
import { useEffect, useRef, useState } from "hono/jsx/dom";
import type { AmendmentKind } from "../domain/kinds.ts";
import { AMENDMENT_KIND_LABELS } from "./format.ts";
import { type Facts, factLines, layout } from "./timeline.ts";

/** Each amendment kind's mark: a shape of its own, so kinds differ without colour (and in print). */
function Shape({ kind, x, y }: { kind: AmendmentKind; x: number; y: number }) {
  const s = 6;
  const cls = `mark mark-${kind}`;
  switch (kind) {
    case "continuation":
      return <polygon class={cls} points={`${x},${y - s} ${x + s},${y + s} ${x - s},${y + s}`} />;
    case "termination":
      return <rect class={cls} x={x - s} y={y - s} width={2 * s} height={2 * s} />;
    case "reinstatement":
      return <circle class={cls} cx={x} cy={y} r={s} />;
    case "assignment":
      return <polygon class={cls} points={`${x},${y - s} ${x + s},${y} ${x},${y + s} ${x - s},${y}`} />;
    case "party_change":
      return <polygon class={cls} points={`${x - s},${y - s} ${x + s},${y - s} ${x},${y + s}`} />;
    case "collateral_change":
      return (
        <path
          class={cls}
          d={`M${x - 2},${y - s}h4v${s - 2}h${s - 2}v4h-${s - 2}v${s - 2}h-4v-${s - 2}h-${s - 2}v-4h${s - 2}z`}
        />
      );
    default:
      return <circle class={`${cls} hollow`} cx={x} cy={y} r={s - 1} />;
  }
}

function Legend({ kinds }: { kinds: AmendmentKind[] }) {
  if (kinds.length === 0) return null;
  return (
    <ul class="legend" aria-hidden="true">
      {kinds.map((kind) => (
        <li key={kind}>
          <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
            <Shape kind={kind} x={8} y={8} />
          </svg>
          {AMENDMENT_KIND_LABELS[kind]}
        </li>
      ))}
    </ul>
  );
}

export function Timeline({ facts }: { facts: Facts }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.round(entry?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const plot = layout(facts, width);
  const kinds = [...new Set(facts.marks.map((m) => m.kind))];
  const label = `Timeline of filing ${facts.number}`;
  return (
    <section class="timeline" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <div class="timeline-body">
        <div class="timeline-picture" ref={box}>
          <svg
            role="img"
            aria-label={label}
            width={plot.width}
            height={plot.height}
            viewBox={`0 0 ${plot.width} ${plot.height}`}
          >
            <line class="axis" x1={0} x2={plot.width} y1={plot.axisY} y2={plot.axisY} />
            {plot.ticks.map((t) => (
              <g key={t.label}>
                <line class="tick" x1={t.x} x2={t.x} y1={plot.axisY} y2={plot.axisY + 5} />
                <text class="tick-label" x={t.x} y={plot.axisY + 17} text-anchor="middle">
                  {t.label}
                </text>
              </g>
            ))}
            {plot.bars.map((b) => (
              <rect
                key={b.x}
                class={b.added ? "term term-added" : "term"}
                x={b.x}
                y={plot.barY}
                width={b.width}
                height={plot.barHeight}
              />
            ))}
            {plot.open && (
              <polygon
                class="term"
                points={`${plot.width - 10},${plot.barY - 3} ${plot.width},${plot.barY + plot.barHeight / 2} ${plot.width - 10},${plot.barY + plot.barHeight + 3}`}
              />
            )}
            {plot.cut !== null && (
              <line class="cut" x1={plot.cut} x2={plot.cut} y1={plot.barY - 4} y2={plot.barY + plot.barHeight + 4} />
            )}
            {plot.flags.map((f) => (
              <g key={f.kind} class={`flag flag-${f.kind}`}>
                {/* Down to the axis only: below it, lines would cross the year labels and other flags' labels. */}
                <line x1={f.x} x2={f.x} y1={plot.barY - 4} y2={plot.axisY + 4} />
                <text x={f.labelX} y={f.labelY} text-anchor={f.anchor}>
                  {f.label}
                </text>
              </g>
            ))}
            {plot.marks.map((m) => (
              <g key={m.number}>
                <line class="stem" x1={m.x} x2={m.x} y1={m.y} y2={plot.barY} />
                <Shape kind={m.kind} x={m.x} y={m.y} />
              </g>
            ))}
          </svg>
          <Legend kinds={kinds} />
        </div>
        <ol class="timeline-facts" aria-label={`Events of filing ${facts.number}`}>
          {factLines(facts).map((line) => (
            <li key={`${line.date}${line.text}`}>
              <time datetime={line.date}>{line.date}</time> {line.text}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
