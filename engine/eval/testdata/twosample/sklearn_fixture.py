#!/usr/bin/python3
"""Writes the fixture of TestClassifiersAgreeWithSklearn (engine/eval/classify_test.go).

fixture.csv: 240 rows (120 "real", label 0; 120 "generated", label 1) of six features drawn with numpy
(seed 24), built so the two learners must differ:
  f0  real N(0,1), generated N(0.8,1): a linear signal (alone, the best threshold is right 65.5% of the time)
  f1  N(0,1) for both, 10% of the values missing (NaN): noise, and a test of median filling
  f2  real N(0,1), generated ±N(1.8,0.5) with a random sign: a signal no line can use (|f2| tells),
      a forest can
  f3  f0 + N(0,1): a noisy copy of f0
  f4  U(0,1) for both: noise
  f5  integers 0..3 for both: noise with ties
sklearn.json: what scikit-learn (Debian python3-sklearn, the version it prints) gives on it:
  - logistic regression (SimpleImputer(median) → StandardScaler → LogisticRegression(C=1)) fitted on all rows:
    coefficients and intercept, with the newton-cg solver run to the optimum (the default lbfgs stops within
    about 2e-5 of it on this table: 0.19742683 against the optimum's 0.19744029);
  - the accuracy of that pipeline and of RandomForestClassifier(200 trees, max_features="sqrt") under
    RepeatedStratifiedKFold(5 folds, 10 repeats), mean and standard deviation over the 50 folds;
  - two hand cases of logistic regression on one feature: non-separable and separable.
Run: /usr/bin/python3 engine/eval/testdata/twosample/sklearn_fixture.py (from the repository root).
"""
import json, os, sys, warnings
import numpy as np
import sklearn
from sklearn.pipeline import make_pipeline
from sklearn.impute import SimpleImputer
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

warnings.simplefilter("ignore")  # newton-cg reports line searches that cannot improve at machine precision
here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(24)
n = 120
y = np.array([0] * n + [1] * n)
f0 = np.concatenate([rng.normal(0, 1, n), rng.normal(0.8, 1, n)])
f1 = rng.normal(0, 1, 2 * n)
f1[rng.random(2 * n) < 0.1] = np.nan
f2 = np.concatenate([rng.normal(0, 1, n), rng.choice([-1, 1], n) * rng.normal(1.8, 0.5, n)])
f3 = f0 + rng.normal(0, 1, 2 * n)
f4 = rng.random(2 * n)
f5 = rng.integers(0, 4, 2 * n).astype(float)
X = np.column_stack([f0, f1, f2, f3, f4, f5])
with open(os.path.join(here, "fixture.csv"), "w") as fh:
    fh.write("label,f0,f1,f2,f3,f4,f5\n")
    for lab, row in zip(y, X):
        fh.write(str(lab) + "," + ",".join("nan" if np.isnan(v) else repr(float(v)) for v in row) + "\n")

def lr(tol=1e-12):
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), LogisticRegression(C=1.0, solver="newton-cg", tol=tol, max_iter=10000))

full = lr().fit(X, y)
cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=10, random_state=0)
lr_acc = cross_val_score(lr(1e-8), X, y, cv=cv, scoring="accuracy")
rf_acc = cross_val_score(make_pipeline(SimpleImputer(strategy="median"),
                                       RandomForestClassifier(n_estimators=200, max_features="sqrt", random_state=0)),
                         X, y, cv=cv, scoring="accuracy")

def hand(x, yy):
    m = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, solver="newton-cg", tol=1e-12, max_iter=10000)).fit(np.array(x, float).reshape(-1, 1), yy)
    return {"x": x, "y": yy, "coef": float(m[-1].coef_[0][0]), "intercept": float(m[-1].intercept_[0])}

out = {
    "sklearn": sklearn.__version__,
    "lr_coef": [float(c) for c in full[-1].coef_[0]],
    "lr_intercept": float(full[-1].intercept_[0]),
    "lr_cv_mean": float(lr_acc.mean()), "lr_cv_std": float(lr_acc.std()),
    "rf_cv_mean": float(rf_acc.mean()), "rf_cv_std": float(rf_acc.std()),
    "hand_nonseparable": hand([0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 1, 0, 1, 0, 1, 1]),
    "hand_separable": hand([-2, -1, 1, 2], [0, 0, 1, 1]),
}
with open(os.path.join(here, "sklearn.json"), "w") as fh:
    json.dump(out, fh, indent=2)
    fh.write("\n")
print(json.dumps(out, indent=2))
