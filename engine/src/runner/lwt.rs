//! Lightweight transactions (conditional statements), the pure parts: the values a
//! read-first LWT binds (cassandra-stress reads the row's current values, then binds them
//! into the IF conditions) and the `[applied]` outcome of a conditional statement's result.

use scylla::value::{CqlValue, Row};

use crate::gen::Value;

/// The conditional statement's values: `generated`, with the value `read` holds in
/// column `j` put at `positions[j]`. A null column, or every column when no row was
/// found, binds null (cassandra-stress binds nulls too).
pub fn bind_read(mut generated: Vec<Value>, positions: &[usize], read: Option<&Row>) -> Vec<Value> {
    for (j, &at) in positions.iter().enumerate() {
        let value = read.and_then(|r| r.columns.get(j)).and_then(|c| c.clone());
        generated[at] = value.map_or(Value::Null, Value::Cql);
    }
    generated
}

/// Whether a conditional statement applied: the boolean `[applied]` column of the first
/// row of its result (`names` are the result's column names).
pub fn applied(names: &[String], first: Option<&Row>) -> Result<bool, String> {
    let Some(at) = names.iter().position(|n| n == "[applied]") else {
        return Err(format!(
            "the result of a conditional statement has no [applied] column (columns: {}); \
             does the statement end with an IF clause?",
            names.join(", ")
        ));
    };
    match first.and_then(|r| r.columns.get(at)) {
        Some(Some(CqlValue::Boolean(b))) => Ok(*b),
        other => Err(format!(
            "[applied] of a conditional statement is {other:?}, not a boolean"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(columns: Vec<Option<CqlValue>>) -> Row {
        Row { columns }
    }

    #[test]
    fn read_values_replace_the_generated_ones_at_their_positions() {
        let generated = vec![
            Value::Text("author".into()),
            Value::Text("domain".into()),
            Value::BigInt(7),
            Value::Text("generated body".into()),
            Value::Text("generated url".into()),
        ];
        let read = row(vec![Some(CqlValue::Text("stored body".into())), None]);
        let bound = bind_read(generated.clone(), &[3, 4], Some(&read));
        assert_eq!(bound[..3], generated[..3]);
        assert_eq!(bound[3], Value::Cql(CqlValue::Text("stored body".into())));
        assert_eq!(bound[4], Value::Null, "a null column binds null");
    }

    #[test]
    fn a_row_not_found_binds_nulls() {
        let generated = vec![Value::Int(1), Value::Int(2)];
        assert_eq!(
            bind_read(generated, &[1, 0], None),
            [Value::Null, Value::Null]
        );
    }

    #[test]
    fn applied_reads_the_applied_column() {
        let names = ["[applied]".to_string(), "body".to_string()];
        let yes = row(vec![Some(CqlValue::Boolean(true)), None]);
        let no = row(vec![
            Some(CqlValue::Boolean(false)),
            Some(CqlValue::Text("x".into())),
        ]);
        assert_eq!(applied(&names, Some(&yes)), Ok(true));
        assert_eq!(applied(&names, Some(&no)), Ok(false));
        let later = ["body".to_string(), "[applied]".to_string()];
        let r = row(vec![None, Some(CqlValue::Boolean(true))]);
        assert_eq!(applied(&later, Some(&r)), Ok(true));
    }

    #[test]
    fn a_result_without_applied_is_an_error_naming_its_columns() {
        let e = applied(&["body".to_string()], None).unwrap_err();
        assert!(e.contains("no [applied] column (columns: body)"), "{e}");
        let names = ["[applied]".to_string()];
        let e = applied(&names, None).unwrap_err();
        assert!(e.contains("not a boolean"), "{e}");
        let e = applied(&names, Some(&row(vec![Some(CqlValue::Int(1))]))).unwrap_err();
        assert!(e.contains("Int(1)"), "{e}");
    }
}
