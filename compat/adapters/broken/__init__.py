"""Deliberately broken adapters (one module per family): each is a real adapter with one rule broken, as a
real backend could break it. They prove that the specs catch what they claim to
(``python -m compat detect``, compat's own meta-tests), and a user can run any of them
through the public path: ``pytest compat/specs --adapter compat.adapters.broken:Name``.

Rules of the house: a fault breaks one rule of NumPy's semantics the way a backend
could (a promotion table with one wrong cell, a kernel that wants its larger operand
first, a CPU fallback that leaves its result on the CPU), for every input the rule
covers, not for the inputs some spec happens to draw. Each class names its
``family``: the specs that state the rule it breaks (``compat/specs/<family>.py``).
The NumPy-based ones need nothing but NumPy; the gradient and placement ones are
PyTorch's adapter (placement: on compat's reference ``apu`` device) and need torch; the chunked
ones (a Dask chunk's result without what crosses its boundary) are Dask's adapter and need dask.
"""

from __future__ import annotations

from compat.adapters.broken.base import ResultFault, with_values
from compat.adapters.broken.broadcasting import (
    AddBroadcastsWrongly,
    KeepdimsIgnoredForSeveralAxes,
    LowerRankFirstOperandSwapped,
    WhereConditionAlignedLeft,
)
from compat.adapters.broken.creation import ArangeOneShortAtAFloatStep
from compat.adapters.broken.fft import OrthoFftUnscaled
from compat.adapters.broken.gradients import (
    Float64GradientsForFloat32,
    GradientNotReducedOverBroadcast,
    InverseNotTransposedInGradients,
    TanhGradientOffByOnePercent,
)
from compat.adapters.broken.indexing import (
    AddAtLastWriteWins,
    AdvancedIndicesLeftInPlace,
    NegativeStepSliceOffByOne,
    OutOfBoundsIndicesClamped,
    OutOfBoundsWritesDropped,
    SetAtFirstWriteWins,
    TooManyIndicesRaiseValueError,
)
from compat.adapters.broken.interchange import (
    CapabilitiesDenyBooleanIndexing,
    DlpackExportLosesNegativeZeroInBfloat16,
    DlpackImportAlwaysCopies,
    DlpackImportOntoDeviceStaysOnTheHost,
    NamespaceInfoLeavesOutFloat64,
)
from compat.adapters.broken.linalg import (
    DetBatchReversed,
    EighReadsTheUpperTriangle,
    FactorsTheOtherWay,
    PinvIgnoresRtol,
    QrRowSignFlipped,
)
from compat.adapters.broken.manipulation import ConcatenateKeepsTheFirstDtype
from compat.adapters.broken.numerics import (
    LogOfZeroIsNan,
    MultiplyRoundsTowardZero,
    SmallSquareRootsFromFastReciprocal,
    TanhThreeUlpsOff,
)
from compat.adapters.broken.operators import IndexAcceptsFloat, InPlaceRemainderKeepsDividendSign
from compat.adapters.broken.placement import (
    CopyToAnotherDeviceStays,
    Int64AddLeftOnTheHost,
    MaximumMinimumLeftOnTheHost,
)
from compat.adapters.broken.promotion import (
    Float32SlightlyOff,
    Int8Uint8PromotesToInt8,
    Int32PlusFloatStaysInt32,
    TracedScalarsAreStrong,
    WrapperCastsUint8WithFloatByValue,
    ZeroDimArraysPromoteLikeScalars,
)
from compat.adapters.broken.sets import UniqueKeepsSignedZerosApart
from compat.adapters.broken.sorting import ArgmaxLastOfTies, ArgmaxWithinChunk, SortPutsNanFirst
from compat.adapters.broken.special_cases import (
    Atan2OfZeroAndNegativeZero,
    CopysignIgnoresNegativeZero,
    MaximumOfZerosByArgumentOrder,
    NegativeIsZeroMinusX,
    RemainderByInfinityIsNan,
    RoundOfSmallNegativeIsPositiveZero,
)
from compat.adapters.broken.statistics import (
    CumsumInitialDropsLast,
    CumulativeSumRestartsAtChunks,
    NanmeanCountsTheNans,
)
from compat.adapters.broken.wrapped import (
    ArgsortDescendingReversesTies,
    FromDlpackWithoutDevice,
    FullRefusesAnIntShape,
    IntactNamespace,
    LinspaceLeavesOutStopByDefault,
    MaximumRefusesPythonScalars,
    RemainderByDivision,
    ResultTypeRefusesPythonScalars,
    SearchsortedRightByDefault,
    SumKeepsDimsByDefault,
    VecdotForgetsTheConjugate,
)

FAULTS = (
    Int8Uint8PromotesToInt8,
    Int32PlusFloatStaysInt32,
    Float32SlightlyOff,
    ZeroDimArraysPromoteLikeScalars,
    TracedScalarsAreStrong,
    WrapperCastsUint8WithFloatByValue,
    AddBroadcastsWrongly,
    LowerRankFirstOperandSwapped,
    WhereConditionAlignedLeft,
    KeepdimsIgnoredForSeveralAxes,
    NegativeStepSliceOffByOne,
    AdvancedIndicesLeftInPlace,
    OutOfBoundsIndicesClamped,
    OutOfBoundsWritesDropped,
    AddAtLastWriteWins,
    SetAtFirstWriteWins,
    TooManyIndicesRaiseValueError,
    TanhGradientOffByOnePercent,
    GradientNotReducedOverBroadcast,
    Float64GradientsForFloat32,
    InverseNotTransposedInGradients,
    MaximumMinimumLeftOnTheHost,
    Int64AddLeftOnTheHost,
    CopyToAnotherDeviceStays,
    MultiplyRoundsTowardZero,
    SmallSquareRootsFromFastReciprocal,
    LogOfZeroIsNan,
    TanhThreeUlpsOff,
    SortPutsNanFirst,
    ArgmaxLastOfTies,
    UniqueKeepsSignedZerosApart,
    CumsumInitialDropsLast,
    NanmeanCountsTheNans,
    CumulativeSumRestartsAtChunks,
    ArgmaxWithinChunk,
    OrthoFftUnscaled,
    InPlaceRemainderKeepsDividendSign,
    IndexAcceptsFloat,
    ConcatenateKeepsTheFirstDtype,
    ArangeOneShortAtAFloatStep,
    NegativeIsZeroMinusX,
    CopysignIgnoresNegativeZero,
    RoundOfSmallNegativeIsPositiveZero,
    RemainderByInfinityIsNan,
    Atan2OfZeroAndNegativeZero,
    MaximumOfZerosByArgumentOrder,
    DlpackExportLosesNegativeZeroInBfloat16,
    DlpackImportAlwaysCopies,
    DlpackImportOntoDeviceStaysOnTheHost,
    NamespaceInfoLeavesOutFloat64,
    CapabilitiesDenyBooleanIndexing,
    EighReadsTheUpperTriangle,
    QrRowSignFlipped,
    PinvIgnoresRtol,
    DetBatchReversed,
    # Array API namespaces with one rule broken (compat.adapters.broken.namespaces)
    SumKeepsDimsByDefault,
    LinspaceLeavesOutStopByDefault,
    SearchsortedRightByDefault,
    MaximumRefusesPythonScalars,
    ResultTypeRefusesPythonScalars,
    FullRefusesAnIntShape,
    VecdotForgetsTheConjugate,
    RemainderByDivision,
    ArgsortDescendingReversesTies,
    FromDlpackWithoutDevice,
)  # every fault, by family: what python -m compat detect runs
# correct adapters that differ from NumPy where the standard allows it (``control = True``): named
# to python -m compat detect, each must show no divergence
CONTROLS = (FactorsTheOtherWay, IntactNamespace)

__all__ = [
    "CONTROLS",
    "FAULTS",
    "ResultFault",
    "with_values",
    *(fault.__name__ for fault in FAULTS + CONTROLS),
]
