"""The function Spark calls per bucket of keys (``prequential_by_key``'s worker side): each
key's events in order, predicted then learned, with held features, expirations and the
bucket's state; plain Python and NumPy, no PySpark (pandas only as Spark hands it in)."""

from __future__ import annotations

import math
import pickle
import time

# what each output row says about its event (the ``kind`` column)
PREDICTED = "predicted"  # features without a label: predicted, held until the label comes
LEARNED = "learned"  # learned: the label came with the features, or met features held
ERROR = "error"  # malformed: reported in ``error``, no model changed
UNKNOWN_LABEL = "unknown_label"  # a label whose features are not held (expired, never seen)
EXPIRED = "expired"  # held features whose label did not come within ``label_timeout``
SUMMARY = "summary"  # one per key per micro-batch: counters, the metric, the model
KEY_EXPIRED = "key_expired"  # the key had no event for ``key_timeout``: its state is dropped

# the event time in milliseconds (Spark computes it: pandas sees timestamps in local time)
_MOMENT_MS = "__river_boost_moment_ms"

KINDS = (PREDICTED, LEARNED, ERROR, UNKNOWN_LABEL, EXPIRED, SUMMARY, KEY_EXPIRED)
COUNTERS = ("n_learned", "n_held", "n_expired", "n_unknown_labels", "n_errors")
TIMINGS = (
    "seconds_total",
    "seconds_input",
    "seconds_loads",
    "seconds_events",
    "seconds_learn",
    "seconds_dumps",
)


def predict_learn(model, names, rows, labels, predict):
    """The prequential loop of one key over one micro-batch, in order.

    For each step ``i``: if ``predict[i]``, ``model.predict_one`` on the features ``rows[i]``
    (a tuple of values, in the order of ``names``); then, if ``labels[i]`` is not None,
    ``model.learn_one`` on them with that label. Returns the predictions (None where not
    predicted). Everything has been checked before: a faster path (a model method taking the
    rows as arrays, exactly equal to this loop) plugs in here.
    """
    predict_one = model.predict_one
    learn_one = model.learn_one
    predictions = []
    append = predictions.append
    for row, y, p in zip(rows, labels, predict):
        x = dict(zip(names, row))
        append(predict_one(x) if p else None)
        if y is not None:
            learn_one(x, y)
    return predictions


class _Visit:
    """A bucket's output, in columns: one row per event and a few per key."""

    def __init__(self, function):
        self.function = function
        self.keys, self.events, self.labels, self.predictions = [], [], [], []
        self.kinds, self.errors, self.summaries = [], [], []

    def add(self, key, event, label, prediction, kind, error=None, summary=None):
        self.keys.append(key)
        self.events.append(event)
        self.labels.append(label)
        self.predictions.append(prediction)
        self.kinds.append(kind)
        self.errors.append(error)
        self.summaries.append(summary)

    def frame(self, pd):
        f = self.function
        n = len(self.kinds)
        data = {}
        columns = list(zip(*self.keys)) if n else [()] * len(f.by)
        for name, values in zip(f.by, columns):
            data[name] = list(values)
        data[f.event_id] = self.events
        data[f.target] = self.labels
        data["prediction"] = self.predictions
        data["kind"] = self.kinds
        data["error"] = self.errors
        for name in f.columns:
            if name not in data:
                data[name] = [None if s is None else s.get(name) for s in self.summaries]
        return pd.DataFrame(data, columns=f.columns)


class _KeyFunction:
    """The function ``applyInPandasWithState`` calls per bucket of keys: (bucket, frames,
    state) -> frames.

    The keys are hashed into buckets (``key_buckets``) and Spark calls this once per bucket
    and micro-batch: each call of Spark's per-group operator costs some milliseconds (its
    Arrow batches, their conversion to pandas, the output frame), which a bucket shares among
    its keys. The bucket's state is one row: a dict of its keys' states (each key's model,
    held features and metric, pickled apart, so that a key without events is neither
    unpickled nor pickled again). A class rather than a closure so that what it carries to
    the workers is plain and picklable, and so that its steps can be read apart.
    """

    def __init__(self, **settings):
        self.__dict__.update(settings)
        self.metric_template = None if self.metric is None else self.metric.clone()

    def __call__(self, bucket, frames, state):
        import numpy as np
        import pandas as pd

        clock = time.perf_counter
        started = clock()
        # Spark converts the bucket's Arrow batches to pandas as they are iterated
        frames = [frame for frame in frames if len(frame)]
        frame = None if not frames else frames[0] if len(frames) == 1 else pd.concat(frames)
        read = clock()
        keys = self._keys(state)
        now_ms = self._now_ms(state)
        visit = _Visit(self)
        timing = {"seconds_input": read - started, "seconds_loads": clock() - read}

        # -- the keys with events, each with its events' positions in prequential order
        positions, columns = {}, None
        if frame is not None:
            events_started = clock()
            columns = self._columns(frame, now_ms, np)
            key_of = columns["keys"]
            for i in columns["order"].tolist():
                positions.setdefault(key_of[i], []).append(i)
            timing["seconds_events"] = clock() - events_started
        # ... and those whose time is up (a held event's label, or the key itself)
        if now_ms is not None:
            for key, entry in keys.items():
                if key not in positions and entry[8] is not None and entry[8] <= now_ms:
                    positions[key] = None
        for key, where in positions.items():
            self._key(key, keys, where, columns, now_ms, visit, timing, np)

        # -- the bucket's new state, and when to visit it again
        dumps_started = clock()
        if keys:
            state.update((pickle.dumps(keys, protocol=5), self.key_buckets))
            self._set_timeout(state, keys, now_ms)
        elif state.exists:
            state.remove()
        timing["seconds_dumps"] = timing.get("seconds_dumps", 0.0) + clock() - dumps_started
        if not visit.kinds:
            return
        if self.with_timing:  # the bucket's own time, on its first summary row
            first = next((s for s in visit.summaries if s is not None), None)
            if first is not None:
                for name, seconds in timing.items():
                    first[name] = first.get(name, 0.0) + seconds
                first["seconds_total"] = clock() - started
        yield visit.frame(pd)

    def _keys(self, state):
        """The bucket's keys' states; refused if the checkpoint hashed keys otherwise."""
        if not state.exists:
            return {}
        keys, key_buckets = state.get
        if key_buckets != self.key_buckets:
            # the same key would now land in another bucket, beside its old state
            raise ValueError(
                f"the checkpoint's state was written with key_buckets={key_buckets} and the "
                f"query has key_buckets={self.key_buckets}: give the checkpoint's number, or "
                "start a new checkpoint"
            )
        return pickle.loads(keys)

    # -- one key

    def _key(self, key, keys, where, columns, now_ms, visit, timing, np):
        """Key ``key``'s visit: its expirations, then its events (positions ``where`` of the
        bucket's ``columns``, in prequential order; None for a visit its deadline brought)."""
        clock = time.perf_counter
        loads_started = clock()
        entry = keys.get(key)
        if entry is None:
            model, held, metric = None, {}, None
            n_learned = n_expired = n_unknown = n_errors = 0
            last_ms = None
        else:
            model_bytes, held_bytes, metric_bytes, *counts, last_ms, _ = entry
            n_learned, n_expired, n_unknown, n_errors = counts
            held = pickle.loads(held_bytes) if held_bytes is not None else {}

        # -- held events past their deadline expire first: their labels come too late
        if held and now_ms is not None:
            for event, (_, prediction, deadline) in list(held.items()):
                if deadline is not None and deadline <= now_ms:
                    del held[event]
                    visit.add(key, event, None, prediction, EXPIRED)
                    n_expired += 1

        # -- an idle key (no event for key_timeout) loses its state; if events came for it
        # after all (a micro-batch that visits it late), they start a fresh clone
        if self.key_timeout_ms is not None and last_ms is not None and now_ms is not None:
            if last_ms + self.key_timeout_ms <= now_ms:
                for event, (_, prediction, _) in held.items():
                    visit.add(key, event, None, prediction, EXPIRED)
                visit.add(key, None, None, None, KEY_EXPIRED)
                keys.pop(key, None)
                if where is None:
                    return
                entry, held = None, {}
                n_learned = n_expired = n_unknown = n_errors = 0
                last_ms = None
        # a visit its deadline brought changes neither the model nor the metric: their bytes
        # are kept as they are
        changes = where is not None or entry is None
        if entry is None:
            model = self.model.clone()
            metric = None if self.metric_template is None else self.metric_template.clone()
        elif changes:
            model = pickle.loads(model_bytes)
            metric = pickle.loads(metric_bytes) if metric_bytes is not None else None
        else:
            model = metric = None
        timing["seconds_loads"] += clock() - loads_started

        if where is not None:
            events_started = clock()
            steps, rows, labels, predict, waiting, errors = self._steps(where, columns, held)
            n_errors += errors
            learn_started = clock()
            predictions = predict_learn(model, self.features, rows, labels, predict)
            learn_done = clock()
            for j, (kind, event, label, payload) in enumerate(steps):
                prediction = predictions[j]
                if kind == ERROR or kind == UNKNOWN_LABEL:
                    visit.add(key, event, label, None, kind, payload)
                    n_unknown += kind == UNKNOWN_LABEL
                    continue
                if kind == PREDICTED:
                    if j in waiting:  # no label for it in this micro-batch
                        held[event] = (rows[j], prediction, payload)
                    visit.add(key, event, None, prediction, PREDICTED)
                    continue
                # learned: with its prediction, or with the one made when the features came
                if payload is not None:
                    where_, value = payload
                    prediction = predictions[value] if where_ == "step" else value
                visit.add(key, event, label, prediction, LEARNED)
                n_learned += 1
                if metric is not None and prediction is not None:
                    metric.update(label, prediction)
            last_ms = self._last_ms(columns, where, now_ms, last_ms)
            timing["seconds_events"] = timing.get("seconds_events", 0.0) + (
                learn_started - events_started + clock() - learn_done
            )
            timing["seconds_learn"] = timing.get("seconds_learn", 0.0) + learn_done - learn_started

        # -- the key's new state
        dumps_started = clock()
        if changes:
            model_bytes = pickle.dumps(model, protocol=5)
            metric_bytes = None if metric is None else pickle.dumps(metric, protocol=5)
        keys[key] = (
            model_bytes,
            pickle.dumps(held, protocol=5) if held else None,
            metric_bytes,
            n_learned,
            n_expired,
            n_unknown,
            n_errors,
            last_ms,
            self._deadline(held, last_ms, now_ms),
        )
        timing["seconds_dumps"] = timing.get("seconds_dumps", 0.0) + clock() - dumps_started
        summary = {
            "n_learned": n_learned,
            "n_held": len(held),
            "n_expired": n_expired,
            "n_unknown_labels": n_unknown,
            "n_errors": n_errors,
        }
        if metric_bytes is not None:
            if metric is None:
                metric = pickle.loads(metric_bytes)
            summary["metric"] = float(metric.get())
        if self.with_models:
            summary["model"] = model_bytes
        visit.add(key, None, None, None, SUMMARY, summary=summary)

    # -- clocks

    def _now_ms(self, state):
        if self.label_timeout_ms is None and self.key_timeout_ms is None:
            return None
        if self.moment is not None:
            return state.getCurrentWatermarkMs()
        return state.getCurrentProcessingTimeMs()

    def _last_ms(self, columns, where, now_ms, last_ms):
        """The key's latest moment: the micro-batch's time, or its latest event time."""
        if self.key_timeout_ms is None:
            return last_ms
        if self.moment is None:
            return now_ms
        moments = [m for m in (columns["moments"][i] for i in where) if m == m and m is not None]
        if not moments:
            return last_ms
        latest = int(max(moments))
        return latest if last_ms is None else max(latest, last_ms)

    def _deadline(self, held, last_ms, now_ms):
        """When the key must be visited again (its earliest held event's deadline, or the
        end of its idle time), or None."""
        if now_ms is None:
            return None
        deadlines = [deadline for (_, _, deadline) in held.values() if deadline is not None]
        if self.key_timeout_ms is not None and last_ms is not None:
            deadlines.append(last_ms + self.key_timeout_ms)
        return min(deadlines) if deadlines else None

    def _set_timeout(self, state, keys, now_ms):
        if now_ms is None:
            return
        deadlines = [entry[8] for entry in keys.values() if entry[8] is not None]
        if not deadlines:
            return
        deadline = min(deadlines)
        if self.moment is not None:
            # the watermark must pass the deadline; Spark refuses a timeout behind it
            state.setTimeoutTimestamp(max(deadline, now_ms + 1))
        else:
            state.setTimeoutDuration(max(1, deadline - now_ms))

    # -- the events

    def _columns(self, frame, now_ms, np):
        """A bucket's events, checked column by column once: the key and the feature values
        of each, its label, why it is malformed (if it is), its id, its deadline and the
        prequential order of all of them (``order_by``, features before labels, the id)."""
        names = self.features
        reasons = {}  # position -> why the event is malformed

        # features: a list of values per column; nulls (NaN too) counted per event
        values = []
        nulls = []
        for name in names:
            column = frame[name]
            null = column.isna().to_numpy()
            nulls.append(null)
            if name in self.string_features:
                array, unparsed = _parse_numbers(column.tolist(), null, np)
                for i, text in unparsed:
                    reasons.setdefault(i, f"feature {name!r} is not a number: {text!r}")
            elif column.dtype == bool or column.dtype.kind in "iu" or column.dtype == object:
                values.append(column.tolist())  # booleans, integers (None where null)
                continue
            else:
                array = column.to_numpy(dtype=float)
            infinite = np.isinf(array)
            for i in np.flatnonzero(infinite).tolist():
                reasons.setdefault(i, f"feature {name!r} is not finite: {array[i]}")
            values.append(array.tolist())
        n_missing = np.sum(nulls, axis=0) if len(nulls) > 1 else nulls[0].astype(np.int64)
        no_features = n_missing == len(names)
        for i in np.flatnonzero((n_missing > 0) & ~no_features).tolist():
            absent = [name for name, null in zip(names, nulls) if null[i]]
            reasons[i] = f"missing feature values (null or NaN): {absent}"

        # labels: null (or NaN) means none; a regressor's must be finite
        label_column = frame[self.target]
        label_null = label_column.isna().to_numpy()
        labels = label_column.tolist()
        if self.integral_target:
            labels = [None if null else int(y) for y, null in zip(labels, label_null)]
        elif self.is_classifier:
            labels = [None if null else y for y, null in zip(labels, label_null)]
        else:
            labels = [None if null else float(y) for y, null in zip(labels, label_null)]
            for i in np.flatnonzero(~label_null).tolist():
                if not math.isfinite(labels[i]):
                    reasons.setdefault(i, f"label is not finite: {labels[i]}")

        ids = frame[self.event_id].to_numpy()
        order = _order(frame[self.order_by], no_features & ~label_null, ids, np)
        key_columns = [[_plain_value(v) for v in frame[name].tolist()] for name in self.by]
        moments = None
        deadlines = None
        if self.label_timeout_ms is not None and now_ms is not None:
            if self.moment is None:
                deadlines = [now_ms + self.label_timeout_ms] * len(frame)
            else:  # an event without a moment waits from the watermark on
                deadlines = [
                    (now_ms if m is None or m != m else int(m)) + self.label_timeout_ms
                    for m in frame[_MOMENT_MS].tolist()
                ]
        if self.moment is not None:
            moments = frame[_MOMENT_MS].tolist()
        return {
            "keys": list(zip(*key_columns)),
            "rows": list(zip(*values)),
            "labels": labels,
            "reasons": reasons,
            "no_features": no_features.tolist(),
            "ids": ids.tolist(),
            "order": order,
            "deadlines": deadlines,
            "moments": moments,
        }

    def _steps(self, where, columns, held):
        """A key's events (positions ``where``, in prequential order) as prequential steps.

        Returns the steps, one per event: ``(kind, event id, label, payload)``; the rows,
        labels and predict flags :func:`predict_learn` takes, one per step (a step that
        neither predicts nor learns has no row); the steps whose features are held for a
        label; the number of errors. ``held`` loses the events whose label came.
        """
        ids, labels, rows = columns["ids"], columns["labels"], columns["rows"]
        reasons, no_features = columns["reasons"], columns["no_features"]
        deadlines = columns["deadlines"]
        steps, step_rows, step_labels, step_predict = [], [], [], []
        pending = {}  # event id -> step: features of this micro-batch waiting for a label
        seen = set()  # event ids learned with their label in this micro-batch
        waiting = set()  # steps whose features are to be held after the micro-batch
        errors = 0
        for i in where:
            event = ids[i]
            label = labels[i]
            reason = reasons.get(i)
            if reason is None and no_features[i] and label is None:
                reason = "the event has neither features nor a label"
            if reason is None and not no_features[i]:
                if event in held or event in pending or event in seen:
                    reason = f"duplicate event id {event!r}: its features came before"
            if reason is not None:
                steps.append((ERROR, event, label, reason))
                errors += 1
                step_rows.append(())
                step_labels.append(None)
                step_predict.append(False)
                continue
            if no_features[i]:  # a label: the features are held, from now or before
                if event in pending:
                    j = pending.pop(event)
                    waiting.discard(j)
                    steps.append((LEARNED, event, label, ("step", j)))
                    step_rows.append(step_rows[j])
                elif event in held:
                    row, prediction, _ = held.pop(event)
                    steps.append((LEARNED, event, label, ("held", prediction)))
                    step_rows.append(row)
                else:
                    steps.append(
                        (UNKNOWN_LABEL, event, label, "no features held for this event id")
                    )
                    step_rows.append(())
                    step_labels.append(None)
                    step_predict.append(False)
                    continue
                step_labels.append(label)
                step_predict.append(False)
                continue
            if label is None:
                pending[event] = len(steps)
                waiting.add(len(steps))
                steps.append((PREDICTED, event, None, None if deadlines is None else deadlines[i]))
            else:
                seen.add(event)
                steps.append((LEARNED, event, label, None))
            step_rows.append(rows[i])
            step_labels.append(label)
            step_predict.append(True)
        return steps, step_rows, step_labels, step_predict, waiting, errors


def _plain_value(value):
    """A key's value as a Python value (pandas gives numpy scalars of some types)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, str) else value


def _parse_numbers(texts, null, np):
    """Strings as floats (NaN where null); (position, text) of those that are not numbers."""
    parsed = np.full(len(texts), np.nan)
    unparsed = []
    for i in np.flatnonzero(~null).tolist():
        try:
            parsed[i] = float(texts[i])
        except ValueError:
            unparsed.append((i, texts[i]))
    return parsed, unparsed


def _order(column, label_only, ids, np):
    """Positions in prequential order: the column, features before labels, the event id."""
    values = column.to_numpy()
    n = len(values)
    if values.dtype != object and n > 1:
        if not label_only.any() and bool((values[1:] > values[:-1]).all()):
            return np.arange(n)  # already in order, no ties
        try:
            return np.lexsort((ids, label_only, values))
        except TypeError:
            pass
    import pandas as pd

    frame = pd.DataFrame({"o": values, "l": label_only, "i": ids})
    return frame.sort_values(["o", "l", "i"], kind="mergesort").index.to_numpy()
