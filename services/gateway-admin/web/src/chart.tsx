import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

/**
 * A line chart of values over time (uPlot on a canvas), labelled for assistive technology by what
 * it shows. NOTE: the points themselves are not offered as text yet; the period's totals are (the
 * figures above the chart).
 */
export function TimeChart({
  times,
  series,
  label,
  format,
  timeZone,
  locale,
  granularity,
}: {
  times: number[];
  series: ChartSeries[];
  label: string;
  format: (v: number) => string;
  timeZone: string;
  locale: string;
  granularity: 'hour' | 'day' | 'month';
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height: 260,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          value: (_u: uPlot, v: number | null) => (v === null ? '' : format(v)),
        })),
      ],
      axes: [
        {
          values: (_u, ticks) => {
            const f = new Intl.DateTimeFormat(locale, {
              timeZone,
              ...(granularity === 'hour'
                ? { hour: '2-digit', minute: '2-digit' }
                : granularity === 'day'
                  ? { day: 'numeric', month: 'short' }
                  : { month: 'short', year: 'numeric' }),
            });
            return ticks.map((t) => f.format(new Date(t * 1000)));
          },
        },
        { values: (_u, ticks) => ticks.map(format), size: 80 },
      ],
      legend: { show: true },
    };
    const plot = new uPlot(opts, [times, ...series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(300, el.clientWidth), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, format, timeZone, locale, granularity]);
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}
