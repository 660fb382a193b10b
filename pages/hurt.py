"""When unlabeled data hurt: every solver against its own supervised SVM, on data where the
cluster assumption holds and on data where it fails."""

from functools import partial

import streamlit as st

from s3vm_explorer.engine import hurt, lessons
from s3vm_explorer.engine.comparison import (
    FEWEST_DRAWS_FOR_A_VERDICT,
    summarize,
    verdict_counts,
)
from s3vm_explorer.engine.figures.compare import compare_errors_figure
from s3vm_explorer.engine.figures.hurt import hurt_figure
from s3vm_explorer.engine.guides import hurt_guide
from s3vm_explorer.ui import state
from s3vm_explorer.ui.charts import chart
from s3vm_explorer.ui.guide import lesson as guided
from s3vm_explorer.ui.guide import set_widget
from s3vm_explorer.ui.runs import computed
from s3vm_explorer.ui.sidebar import lesson_and_settings, start_page
from s3vm_explorer.ui.verdicts import counts_line, in_words, key_numbers, verdict_table

start_page(uses_data=False)
st.title("When unlabeled data hurt")
st.markdown(
    "An S3VM trusts the unlabeled points: it puts its boundary where they are sparse (the "
    "cluster assumption), and most S3VMs split them in the labels' class shares. Where the data "
    "break either assumption, the unlabeled points can pull the boundary the wrong way. Here "
    "each solver meets *its own* supervised SVM (the same kernel, width and C on the same "
    "labels) on four data sets; S4VM (Li & Zhou, TPAMI 2015) is meant never to be worse than "
    "its SVM, a promise that holds when the true labels are among its candidates (it was "
    "worse in 4 of 66 settings of docs/benchmarks.md, all on g10n)."
)
KEYS, SETTINGS = state.HURT, hurt.SETTINGS
state.keep_teaching_widgets(*KEYS.values())
# The guided lesson and the settings, folded away: at 1024 x 768 the chart is whole on the
# first screen, what the paired tests say under it.
lesson_button, lesson_box, settings = lesson_and_settings(
    "Settings: the points, the label draws and the labels in each")
chart_slot = st.empty()  # the main chart
caption_slot = st.empty()
lesson = st.empty()  # what the paired tests say, filled in once the draws have run
with settings:
    columns = st.columns(3)
    for column, name in zip(columns, ("n", "draws", "per_class"), strict=True):
        column.select_slider(SETTINGS[name].label, SETTINGS[name].options, key=KEYS[name],
                             help=SETTINGS[name].help)
    st.caption(
        "Every solver runs at its generic defaults, the same data-independent rules on every "
        "data set (the kernel width the median distance between the points, S4VM's the mean "
        "one): only the data change. Each data set is drawn with the sidebar's seed s, and draw "
        "d labels as many points of each class, seeded s + d: every solver and its SVM see the "
        "same labels.")

n_points, draws, per_class = (int(st.session_state[KEYS[name]])
                              for name in ("n", "draws", "per_class"))
seed = int(st.session_state[state.SEED])
bar = st.progress(0.0, text="Starting…")
results = computed(
    lessons.unlabeled_hurt, n_points, draws, per_class, seed,
    what=f"{len(hurt.SOLVERS)} solvers on {len(hurt.CASES)} data sets, {draws} label draws "
         "each…",
    progress=lambda done, total: bar.progress(done / total, text=f"{done} of {total} fits"))
bar.empty()
summaries = {name: summarize(rows) for name, rows in results.items()}
titles = {solver: hurt.solver_name(solver) for solver in hurt.SOLVERS}

lesson.info(hurt.headline(summaries))
guided(hurt_guide(summaries), lesson_button, lesson_box,
       on_step=partial(set_widget, KEYS["shown"]))
if draws < FEWEST_DRAWS_FOR_A_VERDICT:
    st.warning(f"With {draws} draws the paired test cannot reach p < 0.05: no solver can be "
               f"called better or worse. Choose {FEWEST_DRAWS_FOR_A_VERDICT} draws or more.")

panels = []
for name, case in hurt.CASES.items():
    X, y = case.data(n_points, seed)
    panels.append({"title": case.title, "tag": case.tag, "X": X, "y": y,
                   "summary": summaries[name], "differences": hurt.differences(results[name])})
chart(hurt_figure(panels, titles), where=chart_slot,
      description=" ".join(hurt.lesson_lines(summaries)).replace("**", ""))
caption_slot.caption(
    f"Top: each data set, {n_points} points, its two classes in colour. Below: each solver's "
    "mean unlabeled error minus its own supervised SVM's on the same "
    f"{draws} draws of {per_class} label{'s' if per_class > 1 else ''} a class, in percentage "
    "points, with its 95 % interval: left of the dotted line the unlabeled points helped, right "
    "of it they hurt. A triangle is a verdict of the paired Wilcoxon test (p < 0.05), a circle "
    "no significant difference."
)

st.header("1 · What the tests show, data set by data set")
st.markdown("\n".join(f"- {line}" for line in hurt.lesson_lines(summaries)))
st.markdown("\n".join(f"- **{case.title}**: {case.description}"
                      for case in hurt.CASES.values()))
st.caption("JTSVM is Joachims' TSVM with label switching (SVMlight), as the DA and cS3VM papers "
           "name it.")

st.header("2 · Draw by draw")
st.radio(SETTINGS["shown"].label, SETTINGS["shown"].options, key=KEYS["shown"], horizontal=True,
         format_func=lambda name: hurt.CASES[name].title)
shown = st.session_state[KEYS["shown"]]
summary, rows = summaries[shown], results[shown]
verdict_table(summary, titles.get)
st.markdown(counts_line(verdict_counts(summary), len(summary), draws))
st.markdown("\n".join(in_words(s, titles[s["solver"]]) for s in summary))
chart(compare_errors_figure(rows, titles), description=key_numbers(summary, titles.get))
st.caption(
    "One band per solver; in it each line is one label draw, from the error of the solver's "
    "own supervised SVM on that draw (grey circle) to the solver's (dot). A line that goes "
    "left means the unlabeled points helped on that draw, a dot on its circle is a tie."
)
