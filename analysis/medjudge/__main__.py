"""The command line as a file: ``python -m medjudge`` and ``spark-submit``.

``spark-submit`` runs a Python *file*; this one runs :func:`medjudge.cli.main` with the
arguments after it, and ``--engine spark`` then takes the session ``spark-submit`` started
(its ``--master`` and ``--conf`` settings; :func:`medjudge.engine.connect.spark_session`)::

    spark-submit --master "local[2]" "$(python -c 'import medjudge.__main__ as m; print(m.__file__)')" \\
        compare verdicts.parquet --mapping mapping.toml --engine spark

The imports are absolute: ``spark-submit`` runs the file as a script, not as a module.
"""

import sys

from medjudge.cli import main

if __name__ == "__main__":
    sys.exit(main())
