# CPython's float arithmetic for the compiled forest: builtin sum() step by step, math.log and
# math.sqrt with their errors (River's tree computes with them, and the forest gives its floats
# bit for bit and raises the same errors). Inline
# functions only: each extension that cimports them compiles its own copy.

from libc.errno cimport ERANGE, errno
from libc.math cimport HUGE_VAL, exp, fabs, isfinite, isnan, log, log2, pow, sqrt

cdef extern from "Python.h":
    int PY_VERSION_HEX


cdef struct PySum:
    double f
    double c
    int n


cdef inline void ps_init(PySum* s) noexcept:
    s.f = 0.0
    s.c = 0.0
    s.n = 0


cdef inline void ps_add(PySum* s, double x) noexcept:
    # builtin sum(): start is int 0, the first float item gives 0 + x (a float), then either
    # plain addition (<= 3.11) or Neumaier's compensated addition (>= 3.12; the extension is
    # compiled for the Python it runs on, so the header's version is the interpreter's).
    cdef double t
    if s.n == 0:
        s.f = 0.0 + x
    elif PY_VERSION_HEX >= 0x030C0000:
        t = s.f + x
        if fabs(s.f) >= fabs(x):
            s.c += (s.f - t) + x
        else:
            s.c += (x - t) + s.f
        s.f = t
    else:
        s.f = s.f + x
    s.n += 1


cdef inline double ps_result(PySum* s) noexcept:
    if PY_VERSION_HEX >= 0x030C0000 and s.c != 0.0 and isfinite(s.c):
        return s.f + s.c
    return s.f


cdef inline bint isinf(double x) noexcept:
    return not isfinite(x) and not isnan(x)


cdef inline double _py_log_of(double x, double fx) except? -1.0:
    """math.log / math.log2 for a float, given the C library's value ``fx`` at ``x``: CPython's
    special cases (infinity and NaN pass through, 0 and negatives raise)."""
    if x > 0.0:
        if isfinite(x):
            return fx
        return x
    if isnan(x):
        return x
    raise ValueError("math domain error")


cdef inline double py_log(double x) except? -1.0:
    """math.log for a float."""
    return _py_log_of(x, log(x) if x > 0.0 else 0.0)


cdef inline double py_log2(double x) except? -1.0:
    """math.log2 for a float."""
    return _py_log_of(x, log2(x) if x > 0.0 else 0.0)


cdef inline double py_exp(double x) except? -1.0:
    """math.exp (OverflowError on overflow, as CPython's math_1 with can_overflow)."""
    cdef double r = exp(x)
    if isinf(r) and isfinite(x):
        raise OverflowError("math range error")
    return r


cdef inline double py_sqrt(double x) except? -1.0:
    """math.sqrt for a float."""
    if x >= 0.0 or isnan(x):
        return sqrt(x)
    raise ValueError("math domain error")


cdef inline double libm_pow(double iv, double iw) except? -1.0:
    """float.__pow__'s last step, for finite ``iv > 0`` and ``iw`` (its special cases done by
    the caller): libm's pow with CPython's errno checks and errors."""
    cdef double ix
    errno = 0
    ix = pow(iv, iw)
    if errno == 0:
        if ix == HUGE_VAL or ix == -HUGE_VAL:
            errno = ERANGE
    elif errno == ERANGE and ix == 0.0:
        errno = 0
    if errno != 0:
        if errno == ERANGE:
            raise OverflowError(34, "Numerical result out of range")
        raise ValueError("math domain error")
    return ix


cdef inline double py_sum(const double* v, int n) noexcept:
    """builtin sum() of n floats."""
    cdef PySum s
    cdef int i
    ps_init(&s)
    for i in range(n):
        ps_add(&s, v[i])
    return ps_result(&s)


cdef inline double py_div(double a, double b) except? -1.0:
    """a / b for floats (ZeroDivisionError as CPython raises it)."""
    if b == 0.0:
        raise ZeroDivisionError("float division by zero")
    return a / b


cdef inline double py_pow(double iv, double iw) except? -1.0:
    """float.__pow__ for iw in {2.0, 0.5} (CPython's special cases, then libm pow)."""
    # (neither 2.0 nor 0.5 is an odd integer: no sign handling)
    if isnan(iv):
        return iv
    if not isfinite(iv):
        return fabs(iv)  # iw > 0, not odd
    if iv == 0.0:
        return 0.0
    if iv < 0.0:
        if iw != <double>(<long long>iw):
            # Python returns a complex number; River then fails in math.erf
            raise TypeError("must be real number, not complex")
        iv = -iv
    if iv == 1.0:
        return 1.0
    return libm_pow(iv, iw)
